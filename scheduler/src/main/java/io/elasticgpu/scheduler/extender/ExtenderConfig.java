package io.elasticgpu.scheduler.extender;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.scheduler.decision.Decisions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How the extender runs: the defaults, overridden by a YAML file's keys ({@link Builder#withFile}, the components'
 * names), overridden by flags. Immutable; checked on construction, and a message names the key and its flag, shows
 * the value and says what to write instead.
 *
 * It is over 400 lines because every option of the extender is here once: its field, its builder method, its
 * validation and its message, which the command line, the chart and the tests all go through.
 *
 * @param listen                  host:port to serve the extender protocol on ({@code --listen}): a loopback address
 *                                unless {@code allowRemoteCallers}, because the verbs bind pods and being reachable
 *                                only from kube-scheduler's own pod (or host) is how they know their caller
 * @param allowRemoteCallers      serve the verbs on any address, to anyone who can reach it
 * @param metricsListen           host:port to serve only {@code /metrics}, {@code /healthz} and {@code /readyz} on, for
 *                                Prometheus and probes from outside the pod; null for none
 * @param tlsCertFile             PEM certificate to serve HTTPS with, or null for HTTP
 * @param tlsKeyFile              its PKCS #8 PEM key
 * @param policy                  the placement policy
 * @param ledgerNamespace         where the per-node ledgers (ConfigMaps) live
 * @param memoryBlockMib          MiB in one unit of the GPU-memory resource
 * @param aliyunUnitMib           MiB in one unit of {@code aliyun.com/gpu-mem}
 * @param gpu                     name of the whole-card resource; likewise the three after it
 * @param staleReservationSeconds age after which a reservation of a pod nobody bound is dropped
 * @param workloadRefreshSeconds  how often the workload estimate of elastic and fgd is rebuilt
 * @param policyWeight            weight of the policy's ranking in prioritize scores
 * @param topologyWeight          weight of the links between the cards a multi-card pod would get
 * @param decideInFilter          the filter passes only the best node and holds the pod's cards there at once (see
 *                                docs/operator-guide.md, "What kube-scheduler does to placement")
 * @param holdSeconds             how long a filter's decision is held when no bind follows
 * @param modelTable              a file of card models' peak TFLOPS that extends and overrides the shipped table
 *                                (core's {@code gpu-models.csv}); null for the shipped table alone
 */
public record ExtenderConfig(
        String listen,
        boolean allowRemoteCallers,
        String metricsListen,
        String tlsCertFile,
        String tlsKeyFile,
        PolicyName policy,
        String ledgerNamespace,
        long memoryBlockMib,
        long aliyunUnitMib,
        String gpu,
        String gpuMemory,
        String gpuCore,
        String gpuCount,
        int staleReservationSeconds,
        int workloadRefreshSeconds,
        double policyWeight,
        double topologyWeight,
        boolean decideInFilter,
        int holdSeconds,
        String modelTable) {

    /**
     * The table asks in TFLOPS are converted with: the shipped one, extended by {@link #modelTable} when set.
     *
     * @throws IllegalArgumentException naming the flag, and the file's line, model and field of a mistake
     */
    public ModelTable models() {
        if (modelTable == null) {
            return ModelTable.shipped();
        }
        String text;
        try {
            text = Files.readString(Path.of(modelTable), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("modelTable (--model-table): %s cannot be read (%s); give a CSV file"
                            .formatted(modelTable, e.getMessage())
                    + " with the header " + ModelTable.HEADER);
        }
        try {
            return ModelTable.shipped().extendedBy(ModelTable.parse(modelTable, text));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("modelTable (--model-table): " + e.getMessage(), e);
        }
    }

    private static final String RESOURCE_NAME =
            "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9][-A-Za-z0-9_.]*";

    /**
     * @throws IllegalArgumentException naming the first setting that is wrong, its value and how to fix it
     */
    public ExtenderConfig {
        requireNonNull(policy, "policy");
        if (policy == PolicyName.ELASTIC_LOOKAHEAD && !decideInFilter) {
            throw new IllegalArgumentException(
                    "policy (--policy): elastic-lookahead rolls out its best nodes in the deciding filter, and"
                            + " decideInFilter (--no-decide-in-filter) is off, so it would score as elastic; turn"
                            + " decideInFilter on or choose elastic");
        }
        Address verbs = Address.parse("listen (--listen)", listen);
        if (metricsListen != null) {
            Address.parse("metricsListen (--metrics-listen)", metricsListen);
        }
        if (!allowRemoteCallers && !verbs.loopback()) {
            throw new IllegalArgumentException(
                    ("listen: %s is reachable from other hosts, and the verbs there bind pods for whoever calls "
                                    + "them; serve them on a loopback address (127.0.0.1:8888) beside kube-scheduler, "
                                    + "as the chart does (docs/reference/scheduler.md, \"Who may call the extender\"), "
                                    + "with metricsListen (--metrics-listen) for Prometheus and probes, or set "
                                    + "allowRemoteCallers (--allow-remote-callers) to accept any caller")
                            .formatted(listen));
        }
        if ((tlsCertFile == null) != (tlsKeyFile == null)) {
            throw new IllegalArgumentException(
                    "tlsCertFile (--tls-cert) and tlsKeyFile (--tls-key) go together; give both"
                            + " or neither, were %s and %s"
                                    .formatted(quotedOrNone(tlsCertFile), quotedOrNone(tlsKeyFile)));
        }
        readable("tlsCertFile (--tls-cert)", tlsCertFile);
        readable("tlsKeyFile (--tls-key)", tlsKeyFile);
        if (ledgerNamespace == null || !ledgerNamespace.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
            throw new IllegalArgumentException(("ledgerNamespace (--ledger-namespace) must be a namespace name, was %s;"
                            + " lower-case letters, digits and '-', e.g. elastic-gpu-system")
                    .formatted(quotedOrNone(ledgerNamespace)));
        }
        if (memoryBlockMib < 1) {
            throw new IllegalArgumentException(
                    ("memoryBlockMib (--memory-block-mib) must be >= 1, was %d; give the MiB in"
                                    + " one unit of elasticgpu.io/gpu-memory, the node agents' --memory-block-mib")
                            .formatted(memoryBlockMib));
        }
        if (aliyunUnitMib < 1) {
            throw new IllegalArgumentException(
                    ("aliyunUnitMib (--aliyun-unit-mib) must be >= 1, was %d; give the MiB in"
                                    + " one unit of aliyun.com/gpu-mem, the node agents' --aliyun-unit-mib (1024: "
                                    + "Aliyun's GiB)")
                            .formatted(aliyunUnitMib));
        }
        resourceName("gpu", gpu, ResourceNames.GPU);
        resourceName("gpuMemory", gpuMemory, ResourceNames.GPU_MEMORY);
        resourceName("gpuCore", gpuCore, ResourceNames.GPU_CORE);
        resourceName("gpuCount", gpuCount, ResourceNames.GPU_COUNT);
        atLeast("staleReservationSeconds", staleReservationSeconds, 10, 60);
        atLeast("workloadRefreshSeconds", workloadRefreshSeconds, 1, 60);
        if (!(policyWeight >= 0)
                || !(topologyWeight >= 0)
                || policyWeight + topologyWeight == 0
                || Double.isInfinite(policyWeight + topologyWeight)) {
            throw new IllegalArgumentException(
                    ("policyWeight and topologyWeight must be finite, >= 0 and not both 0, were %s"
                                    + " and %s; give --policy-weight or --topology-weight a positive weight "
                                    + "(defaults 1 and 2)")
                            .formatted(policyWeight, topologyWeight));
        }
        atLeast("holdSeconds", holdSeconds, 1, 30);
    }

    /** The defaults, to change with {@code withX}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Every setting at its default. */
    public static ExtenderConfig defaults() {
        return builder().build();
    }

    /**
     * The defaults overridden by a YAML file's keys.
     *
     * @throws IllegalArgumentException for an unreadable file, an unknown key, a value of the wrong type, or a
     *                                  setting that is wrong
     */
    public static ExtenderConfig load(Path file) {
        return builder().withFile(file).build();
    }

    /** A builder holding this configuration, to change some settings of it. */
    public Builder toBuilder() {
        return new Builder(this);
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
    public Optional<Address> metricsAddress() {
        return metricsListen == null ? Optional.empty() : Optional.of(Address.parse("metricsListen", metricsListen));
    }

    public PodAsks.Units units() {
        return new PodAsks.Units(memoryBlockMib, aliyunUnitMib, gpu, gpuMemory, gpuCore, gpuCount);
    }

    private static void readable(String setting, String file) {
        if (file != null && !Files.isReadable(Path.of(file))) {
            throw new IllegalArgumentException(
                    "%s: cannot read \"%s\"; give a readable PEM file".formatted(setting, file));
        }
    }

    private static void resourceName(String key, String name, String example) {
        if (name == null || !name.matches(RESOURCE_NAME)) {
            throw new IllegalArgumentException("%s must be an extended resource name (domain/name), was %s; e.g. %s"
                    .formatted(key, quotedOrNone(name), example));
        }
    }

    private static void atLeast(String key, int value, int least, int example) {
        if (value < least) {
            throw new IllegalArgumentException(
                    "%s must be >= %d, was %d; e.g. %d".formatted(key, least, value, example));
        }
    }

    private static String quotedOrNone(String value) {
        return value == null ? "none" : "\"" + value + "\"";
    }

    /**
     * Every setting at its default until changed; {@link #build} checks them together, so that a flag may mend what a
     * file set. Not thread-safe.
     */
    public static final class Builder {
        private String listen = "127.0.0.1:8888";
        private boolean allowRemoteCallers;
        private String metricsListen;
        private String tlsCertFile;
        private String tlsKeyFile;
        private PolicyName policy = PolicyName.DEFAULT;
        private String ledgerNamespace = "elastic-gpu-system";
        private long memoryBlockMib = PodAsks.Units.DEFAULT.memoryBlockMib();
        private long aliyunUnitMib = PodAsks.Units.DEFAULT.aliyunUnitMib();
        private String gpu = ResourceNames.GPU;
        private String gpuMemory = ResourceNames.GPU_MEMORY;
        private String gpuCore = ResourceNames.GPU_CORE;
        private String gpuCount = ResourceNames.GPU_COUNT;
        private int staleReservationSeconds = 60;
        private int workloadRefreshSeconds = 60;
        private double policyWeight = Decisions.Weights.DEFAULT.policy();
        private double topologyWeight = Decisions.Weights.DEFAULT.topology();
        private boolean decideInFilter = true;
        private int holdSeconds = 30;
        private String modelTable;

        private Builder() {}

        private Builder(ExtenderConfig c) {
            listen = c.listen;
            allowRemoteCallers = c.allowRemoteCallers;
            metricsListen = c.metricsListen;
            tlsCertFile = c.tlsCertFile;
            tlsKeyFile = c.tlsKeyFile;
            policy = c.policy;
            ledgerNamespace = c.ledgerNamespace;
            memoryBlockMib = c.memoryBlockMib;
            aliyunUnitMib = c.aliyunUnitMib;
            gpu = c.gpu;
            gpuMemory = c.gpuMemory;
            gpuCore = c.gpuCore;
            gpuCount = c.gpuCount;
            staleReservationSeconds = c.staleReservationSeconds;
            workloadRefreshSeconds = c.workloadRefreshSeconds;
            policyWeight = c.policyWeight;
            topologyWeight = c.topologyWeight;
            decideInFilter = c.decideInFilter;
            holdSeconds = c.holdSeconds;
            modelTable = c.modelTable;
        }

        /** A file of card models' peak TFLOPS over the shipped table; null for the shipped table alone. */
        public Builder withModelTable(String file) {
            modelTable = file;
            return this;
        }

        /**
         * The keys of a YAML file (the record's component names) over what is set so far.
         *
         * @throws IllegalArgumentException starting with the file's name, for an unreadable file, an unknown key or a
         *                                  value of the wrong type
         */
        public Builder withFile(Path file) {
            ExtenderConfigFile.read(file)
                    .forEach((key, value) -> ExtenderConfigFile.set(this, key, value, file.toString()));
            return this;
        }

        public Builder withListen(String hostPort) {
            listen = hostPort;
            return this;
        }

        public Builder withAllowRemoteCallers(boolean allow) {
            allowRemoteCallers = allow;
            return this;
        }

        /** @param hostPort where to serve metrics and probes alone; null for nowhere */
        public Builder withMetricsListen(String hostPort) {
            metricsListen = hostPort;
            return this;
        }

        /** @param certFile the PEM certificate chain to serve HTTPS with; null for HTTP */
        public Builder withTlsCertFile(String certFile) {
            tlsCertFile = certFile;
            return this;
        }

        /** @param keyFile the certificate's PKCS #8 PEM key; null for HTTP */
        public Builder withTlsKeyFile(String keyFile) {
            tlsKeyFile = keyFile;
            return this;
        }

        public Builder withPolicy(PolicyName name) {
            policy = name;
            return this;
        }

        public Builder withLedgerNamespace(String namespace) {
            ledgerNamespace = namespace;
            return this;
        }

        public Builder withMemoryBlockMib(long mib) {
            memoryBlockMib = mib;
            return this;
        }

        public Builder withAliyunUnitMib(long mib) {
            aliyunUnitMib = mib;
            return this;
        }

        public Builder withGpu(String name) {
            gpu = name;
            return this;
        }

        public Builder withGpuMemory(String name) {
            gpuMemory = name;
            return this;
        }

        public Builder withGpuCore(String name) {
            gpuCore = name;
            return this;
        }

        public Builder withGpuCount(String name) {
            gpuCount = name;
            return this;
        }

        public Builder withStaleReservationSeconds(int seconds) {
            staleReservationSeconds = seconds;
            return this;
        }

        public Builder withWorkloadRefreshSeconds(int seconds) {
            workloadRefreshSeconds = seconds;
            return this;
        }

        public Builder withPolicyWeight(double weight) {
            policyWeight = weight;
            return this;
        }

        public Builder withTopologyWeight(double weight) {
            topologyWeight = weight;
            return this;
        }

        public Builder withDecideInFilter(boolean decide) {
            decideInFilter = decide;
            return this;
        }

        public Builder withHoldSeconds(int seconds) {
            holdSeconds = seconds;
            return this;
        }

        /** @throws IllegalArgumentException naming the first setting that is wrong, its value and how to fix it */
        public ExtenderConfig build() {
            return new ExtenderConfig(
                    listen,
                    allowRemoteCallers,
                    metricsListen,
                    tlsCertFile,
                    tlsKeyFile,
                    policy,
                    ledgerNamespace,
                    memoryBlockMib,
                    aliyunUnitMib,
                    gpu,
                    gpuMemory,
                    gpuCore,
                    gpuCount,
                    staleReservationSeconds,
                    workloadRefreshSeconds,
                    policyWeight,
                    topologyWeight,
                    decideInFilter,
                    holdSeconds,
                    modelTable);
        }
    }
}
