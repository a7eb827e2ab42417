// The book's RemoteClusterUtils example (chapter 6, "Geo-Replication Example"): its main
// method as printed, in a class with the imports it needs so that `java UpstreamClusters.java`
// runs it. The test replaces the bootstrap address.
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.mirror.RemoteClusterUtils;

public class UpstreamClusters {
    public static void main(String[] args) throws Exception {
        Map<String, Object> configs = new HashMap<>();
        configs.put("bootstrap.servers", "west-kafka0:9092");

        Set<String> clusters = RemoteClusterUtils.upstreamClusters(configs);
        System.out.println(clusters);

        int hops = RemoteClusterUtils.replicationHops(configs, "east-kafka");
        System.out.println("hops to east-kafka: " + hops);
    }
}
