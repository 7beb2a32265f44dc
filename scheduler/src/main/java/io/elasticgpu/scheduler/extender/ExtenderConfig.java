package io.elasticgpu.scheduler.extender;

import io.elasticgpu.api.v1alpha1.PodGpuRequests;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.scheduler.decision.Decisions;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the extender runs, from a YAML file and flags, validated at start with messages that say what to change.
 *
 * @param listen                  host:port to serve the extender protocol on: a loopback address unless
 *                                {@code allowRemoteCallers}, because the verbs bind pods and being reachable only
 *                                from kube-scheduler's own pod (or host) is how they know their caller
 * @param allowRemoteCallers      serve the verbs on any address, to anyone who can reach it
 * @param metricsListen           host:port to serve only {@code /metrics}, {@code /healthz} and {@code /readyz} on, for
 *                                Prometheus and probes from outside the pod; null for none
 * @param tlsCertFile             PEM certificate to serve HTTPS with, or null for HTTP
 * @param tlsKeyFile              its PKCS #8 PEM key
 * @param policy                  the placement policy ({@link PolicyName})
 * @param ledgerNamespace         where the per-node ledgers (ConfigMaps) live
 * @param memoryBlockMib          MiB in one unit of the GPU-memory resource
 * @param aliyunUnitMib           MiB in one unit of {@code aliyun.com/gpu-mem}
 * @param gpu                     name of the whole-card resource; likewise the three after it
 * @param staleReservationSeconds age after which a reservation of a pod nobody bound is dropped
 * @param workloadRefreshSeconds  how often the workload estimate of elastic and fgd is rebuilt
 * @param policyWeight            weight of the policy's ranking in prioritize scores
 * @param topologyWeight          weight of the links between the cards a multi-card pod would get
 * @param decideInFilter          the filter passes only the best node and holds the pod's cards there at once (see
 *                                README, "What kube-scheduler does to placement")
 * @param holdSeconds             how long a filter's decision is held when no bind follows
 */
public record ExtenderConfig(String listen, boolean allowRemoteCallers, String metricsListen, String tlsCertFile, String tlsKeyFile, String policy, String ledgerNamespace,
                             long memoryBlockMib, long aliyunUnitMib, String gpu, String gpuMemory, String gpuCore,
                             String gpuCount, int staleReservationSeconds, int workloadRefreshSeconds,
                             double policyWeight, double topologyWeight, boolean decideInFilter, int holdSeconds) {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    public static ExtenderConfig defaults() {
        return new ExtenderConfig("127.0.0.1:8888", false, null, null, null, Policies.DEFAULT, "elastic-gpu-system", 1, 1024,
                ResourceNames.GPU, ResourceNames.GPU_MEMORY, ResourceNames.GPU_CORE, ResourceNames.GPU_COUNT, 60, 60,
                Decisions.Weights.DEFAULT.policy(), Decisions.Weights.DEFAULT.topology(), true, 30);
    }

    /**
     * The defaults overridden by a YAML file's keys (the record's component names).
     *
     * @throws IllegalArgumentException for an unreadable file, an unknown key or a value of the wrong type
     */
    public static ExtenderConfig load(Path file) {
        Map<String, Object> values;
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> read = YAML.readValue(Files.readString(file), Map.class);
            values = read == null ? Map.of() : read;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read extender configuration %s: %s".formatted(file, e.getMessage()), e);
        }
        return defaults().with(values, file.toString());
    }

    /**
     * This configuration with {@code overrides} (keys are the record's component names), as flags give them.
     *
     * @throws IllegalArgumentException for an unknown key or a value of the wrong type
     */
    public ExtenderConfig with(Map<String, ?> overrides) {
        return with(overrides, "flags");
    }

    public ExtenderConfig withListen(String value) {
        return with(Map.of("listen", value));
    }

    private ExtenderConfig with(Map<String, ?> overrides, String source) {
        @SuppressWarnings("unchecked")
        Map<String, Object> merged = new LinkedHashMap<>(YAML.convertValue(this, Map.class));
        for (var e : overrides.entrySet()) {
            if (!merged.containsKey(e.getKey())) {
                throw new IllegalArgumentException("%s: unknown key \"%s\"; known keys: %s"
                        .formatted(source, e.getKey(), String.join(", ", new TreeMap<>(merged).keySet())));
            }
            merged.put(e.getKey(), e.getValue());
        }
        try {
            return YAML.convertValue(merged, ExtenderConfig.class);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("%s: %s".formatted(source, e.getMessage().lines().findFirst().orElse("")), e);
        }
    }

    /**
     * @throws IllegalArgumentException naming the first setting that is wrong and how to fix it
     */
    public ExtenderConfig validate() {
        Address verbs = Address.parse("listen", listen);
        if (metricsListen != null) {
            Address.parse("metricsListen", metricsListen);
        }
        if (!allowRemoteCallers && !verbs.loopback()) {
            throw new IllegalArgumentException(("listen: %s is reachable from other hosts, and the verbs there bind pods for"
                    + " whoever calls them; serve them on a loopback address (127.0.0.1:8888) beside kube-scheduler, as the"
                    + " chart does (README, \"Who may call the extender\"), with metricsListen (--metrics-listen) for"
                    + " Prometheus and probes, or set allowRemoteCallers (--allow-remote-callers) to accept any caller")
                    .formatted(listen));
        }
        if ((tlsCertFile == null) != (tlsKeyFile == null)) {
            throw new IllegalArgumentException("tlsCertFile and tlsKeyFile go together; give both or neither");
        }
        for (String f : new String[] {tlsCertFile, tlsKeyFile}) {
            if (f != null && !Files.isReadable(Path.of(f))) {
                throw new IllegalArgumentException("cannot read TLS file %s".formatted(f));
            }
        }
        PolicyName.parse(policy);
        if (memoryBlockMib < 1 || aliyunUnitMib < 1) {
            throw new IllegalArgumentException("memoryBlockMib and aliyunUnitMib must be >= 1, were %d and %d"
                    .formatted(memoryBlockMib, aliyunUnitMib));
        }
        for (String name : List.of(gpu, gpuMemory, gpuCore, gpuCount)) {
            if (name == null || !name.matches("([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9][-A-Za-z0-9_.]*")) {
                throw new IllegalArgumentException("\"%s\" is not a valid extended resource name (domain/name)".formatted(name));
            }
        }
        if (ledgerNamespace == null || !ledgerNamespace.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
            throw new IllegalArgumentException("ledgerNamespace must be a namespace name, was \"%s\"".formatted(ledgerNamespace));
        }
        if (staleReservationSeconds < 10 || workloadRefreshSeconds < 1) {
            throw new IllegalArgumentException("staleReservationSeconds must be >= 10 and workloadRefreshSeconds >= 1, were %d and %d"
                    .formatted(staleReservationSeconds, workloadRefreshSeconds));
        }
        if (!(policyWeight >= 0) || !(topologyWeight >= 0) || policyWeight + topologyWeight == 0
                || Double.isInfinite(policyWeight + topologyWeight)) {
            throw new IllegalArgumentException("policyWeight and topologyWeight must be finite, >= 0 and not both 0, were %s and %s"
                    .formatted(policyWeight, topologyWeight));
        }
        if (holdSeconds < 1) {
            throw new IllegalArgumentException("holdSeconds must be >= 1, was %d".formatted(holdSeconds));
        }
        return this;
    }

    /** How prioritize weighs the policy against card links. */
    public Decisions.Weights weights() {
        return new Decisions.Weights(policyWeight, topologyWeight);
    }

    public String host() {
        return Address.parse("listen", listen).host();
    }

    public int port() {
        return Address.parse("listen", listen).port();
    }

    /** Where to serve metrics and probes alone, if anywhere. */
    public java.util.Optional<Address> metricsAddress() {
        return metricsListen == null ? java.util.Optional.empty() : java.util.Optional.of(Address.parse("metricsListen", metricsListen));
    }

    public PodGpuRequests.Units units() {
        return new PodGpuRequests.Units(memoryBlockMib, aliyunUnitMib, gpu, gpuMemory, gpuCore, gpuCount);
    }
}
