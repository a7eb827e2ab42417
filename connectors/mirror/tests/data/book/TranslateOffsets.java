// The book's RemoteClusterUtils example (chapter 6, "Disaster Recovery Example"): its main
// method as printed, in a class with the imports it needs so that `java TranslateOffsets.java`
// runs it. The test replaces the bootstrap address.
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.RemoteClusterUtils;

public class TranslateOffsets {
    public static void main(String[] args) throws Exception {
        Map<String, Object> configs = new HashMap<>();
        configs.put("bootstrap.servers", "west-kafka0:9092");
        configs.put("replication.policy.class",
            "org.apache.kafka.connect.mirror.IdentityReplicationPolicy");
        Map<TopicPartition, OffsetAndMetadata> offsets =
            RemoteClusterUtils.translateOffsets(configs,
                "east-kafka",
                "my-group",
                Duration.ofSeconds(5L));
        for (Map.Entry<TopicPartition, OffsetAndMetadata> o : offsets.entrySet()) {
            System.out.println(o.getKey() + " : " + o.getValue().offset());
        }
    }
}
