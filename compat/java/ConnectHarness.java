/*
 * The Java side of kconnect's differential suite (compat/): runs batches of cases through
 * Apache Kafka Connect's own converters, header converters, transformations and predicates,
 * and writes what each produced in the suite's JSON encoding, so the Python side can
 * compare it with what kconnect produced for the same case.
 *
 * Protocol: every line on stdin is "<cases file>\t<results file>"; each cases file holds one
 * JSON case per line. The harness writes one JSON result per case, in order, to the results
 * file and then prints "done <count>" on stdout. One JVM serves a whole test session.
 *
 * Encoding (shared with compat/kconnect_compat/wire.py):
 *   schema  null | {"type", "optional", "name"?, "version"?, "doc"?, "parameters"?,
 *                   "default"?, "fields"?: [{"name", "schema"}], "keySchema"?, "valueSchema"?}
 *   value   null | true | false | "text" | {"i8"|"i16"|"i32"|"i64": n}
 *           | {"f32"|"f64": "<IEEE-754 double bits, hex>"}  (a float is widened exactly)
 *           | {"bytes": base64} | {"dec": "<unscaled>", "scale": n} | {"ts": epoch millis}
 *           | {"array": [value...]} | {"map": [[key, value]...]}
 *           | {"struct": [[field, value]...], "schema"?: schema}
 *           | {"java": class, "text": toString()}  (anything else)
 *   record  {"kind": "source"|"sink", "topic", "partition", "keySchema", "key", "valueSchema",
 *            "value", "timestamp", "headers": [[key, schema, value]...], "offset"?}
 *   error   {"error": {"stage", "class", "message"}}
 */

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class ConnectHarness {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    // Every non-ASCII character escaped: a Java string may hold a lone surrogate, which
    // has no UTF-8 form but survives as a \\uXXXX escape for Python's json module.
    private static final ObjectMapper MAPPER =
            JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    /** A case failed at one stage; the stage tells which call threw. */
    private static final class StageFailure extends Exception {
        final String stage;
        final Throwable cause;

        StageFailure(String stage, Throwable cause) {
            super(cause);
            this.stage = stage;
            this.cause = cause;
        }
    }

    private interface Step<T> {
        T run() throws Exception;
    }

    private static <T> T stage(String name, Step<T> step) throws StageFailure {
        try {
            return step.run();
        } catch (StageFailure failure) {
            throw failure;
        } catch (Throwable t) {
            throw new StageFailure(name, t);
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader commands =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = commands.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            String[] paths = line.split("\t");
            int count = runBatch(Path.of(paths[0]), Path.of(paths[1]));
            System.out.println("done " + count);
            System.out.flush();
        }
    }

    private static int runBatch(Path casesFile, Path resultsFile) throws Exception {
        int count = 0;
        try (BufferedReader cases = Files.newBufferedReader(casesFile, StandardCharsets.UTF_8);
             BufferedWriter results = Files.newBufferedWriter(resultsFile, StandardCharsets.UTF_8)) {
            String line;
            while ((line = cases.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode result;
                try {
                    result = runCase(MAPPER.readTree(line));
                } catch (StageFailure failure) {
                    result = error(failure.stage, failure.cause);
                } catch (Throwable t) {
                    result = error("harness", t);
                }
                results.write(MAPPER.writeValueAsString(result));
                results.write('\n');
                count++;
            }
        }
        return count;
    }

    private static ObjectNode error(String stage, Throwable t) {
        ObjectNode details = NODES.objectNode();
        details.put("stage", stage);
        details.put("class", t.getClass().getName());
        details.put("message", String.valueOf(t.getMessage()));
        ObjectNode node = NODES.objectNode();
        node.set("error", details);
        return node;
    }

    private static JsonNode runCase(JsonNode c) throws Exception {
        String op = c.get("op").asText();
        switch (op) {
            case "toBytes":
                return toBytes(c);
            case "fromBytes":
                return fromBytes(c);
            case "headerToBytes":
                return headerToBytes(c);
            case "headerFromBytes":
                return headerFromBytes(c);
            case "transform":
                return transform(c);
            case "predicate":
                return predicate(c);
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    // -- operations -------------------------------------------------------------------------

    private static Map<String, Object> config(JsonNode node) {
        Map<String, Object> config = new HashMap<>();
        if (node != null) {
            for (Map.Entry<String, JsonNode> entry : node.properties()) {
                config.put(entry.getKey(), entry.getValue().asText());
            }
        }
        return config;
    }

    private static Object instance(String className) throws Exception {
        return Class.forName(className).getDeclaredConstructor().newInstance();
    }

    private static Converter converter(JsonNode c) throws StageFailure {
        return stage("configure", () -> {
            Converter converter = (Converter) instance(c.get("class").asText());
            converter.configure(config(c.get("config")), c.path("isKey").asBoolean(false));
            return converter;
        });
    }

    private static HeaderConverter headerConverter(JsonNode c) throws StageFailure {
        return stage("configure", () -> {
            HeaderConverter converter = (HeaderConverter) instance(c.get("class").asText());
            // As Kafka's worker does for every header converter it builds.
            Map<String, Object> config = config(c.get("config"));
            config.put("converter.type", "header");
            converter.configure(config);
            return converter;
        });
    }

    private static byte[] bytesOf(JsonNode node) {
        return node == null || node.isNull() ? null : Base64.getDecoder().decode(node.asText());
    }

    private static JsonNode bytesNode(byte[] bytes) {
        return bytes == null ? NODES.nullNode() : NODES.textNode(Base64.getEncoder().encodeToString(bytes));
    }

    private static ObjectNode schemaAndValue(SchemaAndValue sv) {
        ObjectNode node = NODES.objectNode();
        node.set("schema", sv == null ? NODES.nullNode() : encodeSchema(sv.schema()));
        node.set("value", sv == null ? NODES.nullNode() : encodeValue(sv.value()));
        return node;
    }

    private static JsonNode toBytes(JsonNode c) throws Exception {
        Schema schema = stage("input", () -> decodeSchema(c.get("schema")));
        Object value = stage("input", () -> decodeValue(c.get("value"), schema));
        Converter converter = converter(c);
        String topic = c.get("topic").asText();
        byte[] bytes = stage("convert", () -> converter.fromConnectData(topic, schema, value));
        ObjectNode result = NODES.objectNode();
        result.set("bytes", bytesNode(bytes));
        try {
            result.set("back", schemaAndValue(converter.toConnectData(topic, bytes)));
        } catch (Throwable t) {
            result.set("back", error("back", t));
        }
        return result;
    }

    private static JsonNode fromBytes(JsonNode c) throws Exception {
        Converter converter = converter(c);
        byte[] bytes = bytesOf(c.get("bytes"));
        SchemaAndValue sv = stage("convert", () -> converter.toConnectData(c.get("topic").asText(), bytes));
        return schemaAndValue(sv);
    }

    private static JsonNode headerToBytes(JsonNode c) throws Exception {
        Schema schema = stage("input", () -> decodeSchema(c.get("schema")));
        Object value = stage("input", () -> decodeValue(c.get("value"), schema));
        HeaderConverter converter = headerConverter(c);
        String topic = c.get("topic").asText();
        String key = c.get("key").asText();
        byte[] bytes = stage("convert", () -> converter.fromConnectHeader(topic, key, schema, value));
        ObjectNode result = NODES.objectNode();
        result.set("bytes", bytesNode(bytes));
        try {
            result.set("back", schemaAndValue(converter.toConnectHeader(topic, key, bytes)));
        } catch (Throwable t) {
            result.set("back", error("back", t));
        }
        return result;
    }

    private static JsonNode headerFromBytes(JsonNode c) throws Exception {
        HeaderConverter converter = headerConverter(c);
        byte[] bytes = bytesOf(c.get("bytes"));
        SchemaAndValue sv = stage("convert", () ->
                converter.toConnectHeader(c.get("topic").asText(), c.get("key").asText(), bytes));
        return schemaAndValue(sv);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static JsonNode transform(JsonNode c) throws Exception {
        ConnectRecord record = stage("input", () -> decodeRecord(c.get("record")));
        List<Transformation> transforms = new ArrayList<>();
        List<Predicate> predicates = new ArrayList<>();
        List<Boolean> negations = new ArrayList<>();
        for (JsonNode step : c.get("chain")) {
            transforms.add(stage("configure", () -> {
                Transformation t = (Transformation) instance(step.get("class").asText());
                t.configure(config(step.get("config")));
                return t;
            }));
            JsonNode p = step.get("predicate");
            if (p == null || p.isNull()) {
                predicates.add(null);
            } else {
                predicates.add(stage("configure", () -> {
                    Predicate predicate = (Predicate) instance(p.get("class").asText());
                    predicate.configure(config(p.get("config")));
                    return predicate;
                }));
            }
            negations.add(step.path("negate").asBoolean(false));
        }
        ConnectRecord current = record;
        for (int i = 0; i < transforms.size() && current != null; i++) {
            Transformation t = transforms.get(i);
            Predicate p = predicates.get(i);
            ConnectRecord input = current;
            // Kafka's TransformationChain: a stage runs when it has no predicate, or when
            // the predicate's answer differs from "negate".
            boolean run = p == null || (negations.get(i) ^ stage("apply", () -> p.test(input)));
            if (run) {
                current = stage("apply", () -> t.apply(input));
            }
        }
        ObjectNode result = NODES.objectNode();
        result.set("record", current == null ? NODES.nullNode() : encodeRecord(current));
        return result;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static JsonNode predicate(JsonNode c) throws Exception {
        ConnectRecord record = stage("input", () -> decodeRecord(c.get("record")));
        Predicate predicate = stage("configure", () -> {
            Predicate p = (Predicate) instance(c.get("class").asText());
            p.configure(config(c.get("config")));
            return p;
        });
        boolean matched = stage("apply", () -> predicate.test(record));
        ObjectNode result = NODES.objectNode();
        result.put("test", matched);
        return result;
    }

    // -- decoding ---------------------------------------------------------------------------

    // Schemas decoded so far, by their text: one schema is one object, as in a real
    // pipeline. Kafka compares a Struct default's schema (the SchemaBuilder it was built
    // on) by identity, so two decodings of one schema with a struct default never match.
    private static final Map<JsonNode, Schema> SCHEMAS = new HashMap<>();

    static Schema decodeSchema(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        Schema known = SCHEMAS.get(node);
        if (known == null) {
            known = buildSchema(node);
            if (SCHEMAS.size() > 10_000) {
                SCHEMAS.clear();
            }
            SCHEMAS.put(node, known);
        }
        return known;
    }

    private static Schema buildSchema(JsonNode node) {
        Schema.Type type = Schema.Type.valueOf(node.get("type").asText().toUpperCase(java.util.Locale.ROOT));
        SchemaBuilder builder;
        if (type == Schema.Type.ARRAY) {
            builder = SchemaBuilder.array(decodeSchema(node.get("valueSchema")));
        } else if (type == Schema.Type.MAP) {
            builder = SchemaBuilder.map(decodeSchema(node.get("keySchema")), decodeSchema(node.get("valueSchema")));
        } else {
            builder = SchemaBuilder.type(type);
        }
        if (node.path("optional").asBoolean(false)) {
            builder.optional();
        }
        if (node.hasNonNull("name")) {
            builder.name(node.get("name").asText());
        }
        if (node.hasNonNull("version")) {
            builder.version(node.get("version").asInt());
        }
        if (node.hasNonNull("doc")) {
            builder.doc(node.get("doc").asText());
        }
        if (node.hasNonNull("parameters")) {
            for (Map.Entry<String, JsonNode> param : node.get("parameters").properties()) {
                builder.parameter(param.getKey(), param.getValue().asText());
            }
        }
        if (type == Schema.Type.STRUCT && node.has("fields")) {
            for (JsonNode field : node.get("fields")) {
                builder.field(field.get("name").asText(), decodeSchema(field.get("schema")));
            }
        }
        JsonNode defaultNode = node.get("default");
        if (defaultNode != null && !defaultNode.isNull()) {
            // A struct default is built on the builder itself, as Kafka's own code does.
            builder.defaultValue(decodeValue(defaultNode, builder));
        }
        return builder.build();
    }

    static Object decodeValue(JsonNode node, Schema context) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("not a tagged value: " + node);
        }
        if (node.has("i8")) {
            return (byte) node.get("i8").asLong();
        }
        if (node.has("i16")) {
            return (short) node.get("i16").asLong();
        }
        if (node.has("i32")) {
            return (int) node.get("i32").asLong();
        }
        if (node.has("i64")) {
            return node.get("i64").asLong();
        }
        if (node.has("f32")) {
            return (float) Double.longBitsToDouble(Long.parseUnsignedLong(node.get("f32").asText(), 16));
        }
        if (node.has("f64")) {
            return Double.longBitsToDouble(Long.parseUnsignedLong(node.get("f64").asText(), 16));
        }
        if (node.has("bytes")) {
            return Base64.getDecoder().decode(node.get("bytes").asText());
        }
        if (node.has("dec")) {
            return new BigDecimal(new BigInteger(node.get("dec").asText()), node.get("scale").asInt());
        }
        if (node.has("ts")) {
            return new Date(node.get("ts").asLong());
        }
        if (node.has("array")) {
            Schema element = context == null ? null : context.valueSchema();
            List<Object> list = new ArrayList<>();
            for (JsonNode item : node.get("array")) {
                list.add(decodeValue(item, element));
            }
            return list;
        }
        if (node.has("map")) {
            Schema keys = context == null ? null : context.keySchema();
            Schema values = context == null ? null : context.valueSchema();
            Map<Object, Object> map = new LinkedHashMap<>();
            for (JsonNode entry : node.get("map")) {
                map.put(decodeValue(entry.get(0), keys), decodeValue(entry.get(1), values));
            }
            return map;
        }
        if (node.has("struct")) {
            Schema schema = node.hasNonNull("schema") ? decodeSchema(node.get("schema")) : context;
            Struct struct = new Struct(schema);
            for (JsonNode entry : node.get("struct")) {
                String name = entry.get(0).asText();
                Field field = schema.field(name);
                Object value = decodeValue(entry.get(1), field == null ? null : field.schema());
                // An unset field is null: Kafka refuses put(null) on a required field
                // with a default, yet treats the unset field as holding that default.
                if (value != null || field == null) {
                    struct.put(name, value);
                }
            }
            return struct;
        }
        throw new IllegalArgumentException("not a tagged value: " + node);
    }

    @SuppressWarnings("rawtypes")
    static ConnectRecord decodeRecord(JsonNode node) {
        Schema keySchema = decodeSchema(node.get("keySchema"));
        Object key = decodeValue(node.get("key"), keySchema);
        Schema valueSchema = decodeSchema(node.get("valueSchema"));
        Object value = decodeValue(node.get("value"), valueSchema);
        JsonNode partitionNode = node.get("partition");
        Integer partition = partitionNode == null || partitionNode.isNull() ? null : partitionNode.asInt();
        JsonNode timestampNode = node.get("timestamp");
        Long timestamp = timestampNode == null || timestampNode.isNull() ? null : timestampNode.asLong();
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode header : node.path("headers")) {
            Schema schema = decodeSchema(header.get(1));
            headers.add(header.get(0).asText(), decodeValue(header.get(2), schema), schema);
        }
        String topic = node.get("topic").asText();
        if ("sink".equals(node.path("kind").asText("source"))) {
            return new SinkRecord(topic, partition == null ? 0 : partition, keySchema, key, valueSchema, value,
                    node.path("offset").asLong(0), timestamp, TimestampType.CREATE_TIME, headers);
        }
        return new SourceRecord(null, null, topic, partition, keySchema, key, valueSchema, value, timestamp, headers);
    }

    // -- encoding ---------------------------------------------------------------------------

    static JsonNode encodeSchema(Schema schema) {
        if (schema == null) {
            return NODES.nullNode();
        }
        ObjectNode node = NODES.objectNode();
        node.put("type", schema.type().getName());
        node.put("optional", schema.isOptional());
        if (schema.name() != null) {
            node.put("name", schema.name());
        }
        if (schema.version() != null) {
            node.put("version", schema.version());
        }
        if (schema.doc() != null) {
            node.put("doc", schema.doc());
        }
        if (schema.parameters() != null && !schema.parameters().isEmpty()) {
            ObjectNode params = NODES.objectNode();
            schema.parameters().forEach(params::put);
            node.set("parameters", params);
        }
        if (schema.type() == Schema.Type.STRUCT) {
            ArrayNode fields = NODES.arrayNode();
            for (Field field : schema.fields()) {
                ObjectNode f = NODES.objectNode();
                f.put("name", field.name());
                f.set("schema", encodeSchema(field.schema()));
                fields.add(f);
            }
            node.set("fields", fields);
        }
        if (schema.type() == Schema.Type.MAP) {
            node.set("keySchema", encodeSchema(schema.keySchema()));
        }
        if (schema.type() == Schema.Type.ARRAY || schema.type() == Schema.Type.MAP) {
            node.set("valueSchema", encodeSchema(schema.valueSchema()));
        }
        if (schema.defaultValue() != null) {
            // A struct default's own schema is the builder that holds this very default:
            // encoding it would never end, and it is this schema anyway.
            Object value = schema.defaultValue();
            node.set("default", value instanceof Struct ? encodeStruct((Struct) value, false) : encodeValue(value));
        }
        return node;
    }

    private static String bits(double d) {
        return String.format("%016x", Double.doubleToLongBits(d));
    }

    static JsonNode encodeValue(Object value) {
        if (value == null) {
            return NODES.nullNode();
        }
        if (value instanceof Boolean) {
            return NODES.booleanNode((Boolean) value);
        }
        if (value instanceof String) {
            return NODES.textNode((String) value);
        }
        ObjectNode node = NODES.objectNode();
        if (value instanceof Byte) {
            node.put("i8", (Byte) value);
        } else if (value instanceof Short) {
            node.put("i16", (Short) value);
        } else if (value instanceof Integer) {
            node.put("i32", (Integer) value);
        } else if (value instanceof Long) {
            node.put("i64", (Long) value);
        } else if (value instanceof Float) {
            node.put("f32", bits((double) (Float) value));
        } else if (value instanceof Double) {
            node.put("f64", bits((Double) value));
        } else if (value instanceof byte[]) {
            node.put("bytes", Base64.getEncoder().encodeToString((byte[]) value));
        } else if (value instanceof ByteBuffer) {
            ByteBuffer buffer = ((ByteBuffer) value).duplicate();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            node.put("bytes", Base64.getEncoder().encodeToString(bytes));
        } else if (value instanceof BigDecimal) {
            BigDecimal decimal = (BigDecimal) value;
            node.put("dec", decimal.unscaledValue().toString());
            node.put("scale", decimal.scale());
        } else if (value instanceof Date) {
            node.put("ts", ((Date) value).getTime());
        } else if (value instanceof List) {
            ArrayNode items = NODES.arrayNode();
            for (Object item : (List<?>) value) {
                items.add(encodeValue(item));
            }
            node.set("array", items);
        } else if (value instanceof Map) {
            ArrayNode entries = NODES.arrayNode();
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                ArrayNode pair = NODES.arrayNode();
                pair.add(encodeValue(entry.getKey()));
                pair.add(encodeValue(entry.getValue()));
                entries.add(pair);
            }
            node.set("map", entries);
        } else if (value instanceof Struct) {
            return encodeStruct((Struct) value, true);
        } else {
            node.put("java", value.getClass().getName());
            node.put("text", String.valueOf(value));
        }
        return node;
    }

    private static ObjectNode encodeStruct(Struct struct, boolean withSchema) {
        ObjectNode node = NODES.objectNode();
        ArrayNode fields = NODES.arrayNode();
        for (Field field : struct.schema().fields()) {
            ArrayNode pair = NODES.arrayNode();
            pair.add(field.name());
            pair.add(encodeValue(struct.getWithoutDefault(field.name())));
            fields.add(pair);
        }
        node.set("struct", fields);
        if (withSchema) {
            node.set("schema", encodeSchema(struct.schema()));
        }
        return node;
    }

    @SuppressWarnings("rawtypes")
    static JsonNode encodeRecord(ConnectRecord record) {
        ObjectNode node = NODES.objectNode();
        node.put("kind", record instanceof SinkRecord ? "sink" : "source");
        node.put("topic", record.topic());
        if (record.kafkaPartition() == null) {
            node.putNull("partition");
        } else {
            node.put("partition", record.kafkaPartition());
        }
        node.set("keySchema", encodeSchema(record.keySchema()));
        node.set("key", encodeValue(record.key()));
        node.set("valueSchema", encodeSchema(record.valueSchema()));
        node.set("value", encodeValue(record.value()));
        if (record.timestamp() == null) {
            node.putNull("timestamp");
        } else {
            node.put("timestamp", record.timestamp());
        }
        ArrayNode headers = NODES.arrayNode();
        for (Header header : record.headers()) {
            ArrayNode h = NODES.arrayNode();
            h.add(header.key());
            h.add(encodeSchema(header.schema()));
            h.add(encodeValue(header.value()));
            headers.add(h);
        }
        node.set("headers", headers);
        if (record instanceof SinkRecord) {
            node.put("offset", ((SinkRecord) record).kafkaOffset());
        }
        return node;
    }
}
