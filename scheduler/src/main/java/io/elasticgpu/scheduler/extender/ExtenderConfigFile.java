package io.elasticgpu.scheduler.extender;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.elasticgpu.core.policy.PolicyName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The extender's YAML configuration file: one key per component of {@link ExtenderConfig}, each read into its type
 * and handed to the builder. Messages start with the file's name.
 */
final class ExtenderConfigFile {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** The keys a file may have: the record's component names. */
    static final Set<String> KEYS = Arrays.stream(ExtenderConfig.class.getRecordComponents())
            .map(java.lang.reflect.RecordComponent::getName)
            .collect(java.util.stream.Collectors.toCollection(TreeSet::new));

    /** The keys that may be null (~): the settings whose absence means "none". */
    private static final Set<String> NULLABLE = Set.of("metricsListen", "tlsCertFile", "tlsKeyFile", "modelTable");

    private ExtenderConfigFile() {}

    /** The file's keys and values, in the file's order. */
    static Map<String, Object> read(Path file) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> read = YAML.readValue(Files.readString(file), Map.class);
            return read == null ? Map.of() : new LinkedHashMap<>(read);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(
                    "cannot read extender configuration %s: %s"
                            .formatted(
                                    file,
                                    e.getMessage() == null
                                            ? e
                                            : e.getMessage().lines().findFirst().orElse("")),
                    e);
        }
    }

    /** Sets {@code key} on the builder. */
    static void set(ExtenderConfig.Builder b, String key, Object value, String source) {
        if (!KEYS.contains(key)) {
            throw new IllegalArgumentException(
                    "%s: unknown key \"%s\"; known keys: %s".formatted(source, key, String.join(", ", KEYS)));
        }
        if (value == null && !NULLABLE.contains(key)) {
            throw new IllegalArgumentException(
                    "%s: %s needs a value; leave the key out for its default".formatted(source, key));
        }
        Value v = new Value(source, key, value);
        switch (key) {
            case "listen" -> b.withListen(v.text());
            case "allowRemoteCallers" -> b.withAllowRemoteCallers(v.bool());
            case "metricsListen" -> b.withMetricsListen(v.text());
            case "tlsCertFile" -> b.withTlsCertFile(v.text());
            case "tlsKeyFile" -> b.withTlsKeyFile(v.text());
            case "policy" -> b.withPolicy(v.policy());
            case "ledgerNamespace" -> b.withLedgerNamespace(v.text());
            case "memoryBlockMib" -> b.withMemoryBlockMib(v.whole());
            case "aliyunUnitMib" -> b.withAliyunUnitMib(v.whole());
            case "gpu" -> b.withGpu(v.text());
            case "gpuMemory" -> b.withGpuMemory(v.text());
            case "gpuCore" -> b.withGpuCore(v.text());
            case "gpuCount" -> b.withGpuCount(v.text());
            case "staleReservationSeconds" -> b.withStaleReservationSeconds(v.integer());
            case "workloadRefreshSeconds" -> b.withWorkloadRefreshSeconds(v.integer());
            case "policyWeight" -> b.withPolicyWeight(v.number());
            case "topologyWeight" -> b.withTopologyWeight(v.number());
            case "decideInFilter" -> b.withDecideInFilter(v.bool());
            case "holdSeconds" -> b.withHoldSeconds(v.integer());
            case "modelTable" -> b.withModelTable(v.text());
            default -> throw new IllegalStateException("ExtenderConfigFile does not set key " + key);
        }
    }

    /** One value of the file, read as the type its key needs. */
    private record Value(String source, String key, Object value) {

        String text() {
            if (value == null || value instanceof String || value instanceof Number) {
                return value == null ? null : value.toString();
            }
            throw wrong("a string");
        }

        boolean bool() {
            return switch (value) {
                case Boolean b -> b;
                case String s when s.equals("true") || s.equals("false") -> Boolean.parseBoolean(s);
                default -> throw wrong("true or false");
            };
        }

        long whole() {
            try {
                return switch (value) {
                    case Integer i -> i;
                    case Long l -> l;
                    case String s -> Long.parseLong(s.strip());
                    default -> throw wrong("a whole number");
                };
            } catch (NumberFormatException e) {
                throw wrong("a whole number");
            }
        }

        int integer() {
            long w = whole();
            if (w != (int) w) {
                throw wrong("a whole number below 2^31");
            }
            return (int) w;
        }

        double number() {
            try {
                return switch (value) {
                    case Number n -> n.doubleValue();
                    case String s -> Double.parseDouble(s.strip());
                    default -> throw wrong("a number");
                };
            } catch (NumberFormatException e) {
                throw wrong("a number");
            }
        }

        PolicyName policy() {
            try {
                return PolicyName.parse(text());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
            }
        }

        private IllegalArgumentException wrong(String what) {
            return new IllegalArgumentException("%s: %s must be %s, was %s"
                    .formatted(
                            source, key, what, value instanceof String ? "\"" + value + "\"" : String.valueOf(value)));
        }
    }
}
