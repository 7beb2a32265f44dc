package io.elasticgpu.scheduler.extender;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.http.ListenAddress;
import io.elasticgpu.scheduler.decision.Decisions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * How the extender runs, made with {@link #builder}: every setting at its default until changed ({@code egpu
 * scheduler} changes them from its flags, environment and configuration file, in that precedence). Immutable; checked
 * on construction, and a message names the setting and its flag, shows the value and says what to write instead.
 *
 * It is over 400 lines because every option of the extender is here once: its field, its builder method, its
 * validation and its message, which the command line, the chart and the tests all go through.
 *
 * @param listen                  host:port to serve the extender protocol on ({@code --listen}): a loopback address
 *                                unless {@code allowRemoteCallers}, because the verbs bind pods and being reachable
 *                                only from kube-scheduler's own pod (or host) is how they know their caller
 * @param allowRemoteCallers      serve the verbs on any address, to anyone who can reach it
 * @param metricsListen           host:port to serve only {@code /metrics}, {@code /healthz} and {@code /readyz} on, for
 *                                Prometheus and probes from outside the pod; empty for none
 * @param tlsCertFile             PEM certificate to serve HTTPS with; empty for HTTP
 * @param tlsKeyFile              its PKCS #8 PEM key
 * @param policy                  the placement policy
 * @param ledgerNamespace         where the per-node ledgers (ConfigMaps) live
 * @param memoryBlockMib          MiB in one unit of the GPU-memory resource
 * @param aliyunUnitMib           MiB in one unit of {@code aliyun.com/gpu-mem}
 * @param gpu                     name of the whole-card resource; likewise the three after it
 * @param staleReservation        age after which a reservation of a pod nobody bound is dropped
 * @param workloadRefresh         how often the workload estimate of elastic and fgd is rebuilt
 * @param policyWeight            weight of the policy's ranking in prioritize scores
 * @param topologyWeight          weight of the links between the cards a multi-card pod would get
 * @param decideInFilter          the filter passes only the best node and holds the pod's cards there at once (see
 *                                docs/operator-guide.md, "What kube-scheduler does to placement")
 * @param hold                    how long a filter's decision is held when no bind follows
 * @param modelTable              a file of card models' peak TFLOPS that extends and overrides the shipped table
 *                                (core's {@code gpu-models.csv}); empty for the shipped table alone
 */
public record ExtenderConfig(
        ListenAddress listen,
        boolean allowRemoteCallers,
        Optional<ListenAddress> metricsListen,
        Optional<Path> tlsCertFile,
        Optional<Path> tlsKeyFile,
        PolicyName policy,
        String ledgerNamespace,
        long memoryBlockMib,
        long aliyunUnitMib,
        String gpu,
        String gpuMemory,
        String gpuCore,
        String gpuCount,
        Duration staleReservation,
        Duration workloadRefresh,
        double policyWeight,
        double topologyWeight,
        boolean decideInFilter,
        Duration hold,
        Optional<Path> modelTable) {

    /**
     * The table asks in TFLOPS are converted with: the shipped one, extended by {@link #modelTable} when set.
     *
     * @throws IllegalArgumentException naming the flag, and the file's line, model and field of a mistake
     */
    public ModelTable models() {
        if (modelTable.isEmpty()) {
            return ModelTable.shipped();
        }
        Path file = modelTable.get();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("modelTable (--model-table): %s cannot be read (%s); give a CSV file"
                            .formatted(file, e.getMessage())
                    + " with the header " + ModelTable.HEADER);
        }
        try {
            return ModelTable.shipped().extendedBy(ModelTable.parse(file.toString(), text));
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
        requireNonNull(listen, "listen");
        requireNonNull(metricsListen, "metricsListen");
        requireNonNull(tlsCertFile, "tlsCertFile");
        requireNonNull(tlsKeyFile, "tlsKeyFile");
        requireNonNull(staleReservation, "staleReservation");
        requireNonNull(workloadRefresh, "workloadRefresh");
        requireNonNull(hold, "hold");
        requireNonNull(modelTable, "modelTable");
        if (policy == PolicyName.ELASTIC_LOOKAHEAD && !decideInFilter) {
            throw new IllegalArgumentException(
                    "policy (--policy): elastic-lookahead rolls out its best nodes in the deciding filter, and"
                            + " decideInFilter (--no-decide-in-filter) is off, so it would score as elastic; turn"
                            + " decideInFilter on or choose elastic");
        }
        if (!allowRemoteCallers && !listen.loopback()) {
            throw new IllegalArgumentException(
                    ("listen: %s is reachable from other hosts, and the verbs there bind pods for whoever calls "
                                    + "them; serve them on a loopback address (127.0.0.1:8888) beside kube-scheduler, "
                                    + "as the chart does (docs/reference/scheduler.md, \"Who may call the extender\"), "
                                    + "with metricsListen (--metrics-listen) for Prometheus and probes, or set "
                                    + "allowRemoteCallers (--allow-remote-callers) to accept any caller")
                            .formatted(listen));
        }
        if (tlsCertFile.isPresent() != tlsKeyFile.isPresent()) {
            throw new IllegalArgumentException(
                    "tlsCertFile (--tls-cert) and tlsKeyFile (--tls-key) go together; give both"
                            + " or neither, were %s and %s"
                                    .formatted(
                                            quotedOrNone(tlsCertFile
                                                    .map(Path::toString)
                                                    .orElse(null)),
                                            quotedOrNone(tlsKeyFile
                                                    .map(Path::toString)
                                                    .orElse(null))));
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
        resourceName("gpu (--gpu-resource)", gpu, ResourceNames.GPU);
        resourceName("gpuMemory (--gpu-memory-resource)", gpuMemory, ResourceNames.GPU_MEMORY);
        resourceName("gpuCore (--gpu-core-resource)", gpuCore, ResourceNames.GPU_CORE);
        resourceName("gpuCount (--gpu-count-resource)", gpuCount, ResourceNames.GPU_COUNT);
        atLeast("staleReservation (--stale-reservation-age)", staleReservation, Duration.ofSeconds(10), "PT60S");
        atLeast("workloadRefresh (--workload-refresh-interval)", workloadRefresh, Duration.ofSeconds(1), "PT60S");
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
        atLeast("hold (--hold-period)", hold, Duration.ofSeconds(1), "PT30S");
    }

    /** The defaults, to change with {@code withX}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Every setting at its default. */
    public static ExtenderConfig defaults() {
        return builder().build();
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
        return listen.host();
    }

    public int port() {
        return listen.port();
    }

    public PodAsks.Units units() {
        return new PodAsks.Units(memoryBlockMib, aliyunUnitMib, gpu, gpuMemory, gpuCore, gpuCount);
    }

    private static void readable(String setting, Optional<Path> file) {
        if (file.isPresent() && !Files.isReadable(file.get())) {
            throw new IllegalArgumentException(
                    "%s: cannot read \"%s\"; give a readable PEM file".formatted(setting, file.get()));
        }
    }

    private static void resourceName(String key, String name, String example) {
        if (name == null || !name.matches(RESOURCE_NAME)) {
            throw new IllegalArgumentException("%s must be an extended resource name (domain/name), was %s; e.g. %s"
                    .formatted(key, quotedOrNone(name), example));
        }
    }

    private static void atLeast(String key, Duration value, Duration least, String example) {
        if (value.compareTo(least) < 0) {
            throw new IllegalArgumentException(
                    "%s must be at least %s, was %s; e.g. %s".formatted(key, least, value, example));
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
        private ListenAddress listen = new ListenAddress("127.0.0.1", 8888);
        private boolean allowRemoteCallers;
        private Optional<ListenAddress> metricsListen = Optional.empty();
        private Optional<Path> tlsCertFile = Optional.empty();
        private Optional<Path> tlsKeyFile = Optional.empty();
        private PolicyName policy = PolicyName.DEFAULT;
        private String ledgerNamespace = "elastic-gpu-system";
        private long memoryBlockMib = PodAsks.Units.DEFAULT.memoryBlockMib();
        private long aliyunUnitMib = PodAsks.Units.DEFAULT.aliyunUnitMib();
        private String gpu = ResourceNames.GPU;
        private String gpuMemory = ResourceNames.GPU_MEMORY;
        private String gpuCore = ResourceNames.GPU_CORE;
        private String gpuCount = ResourceNames.GPU_COUNT;
        private Duration staleReservation = Duration.ofSeconds(60);
        private Duration workloadRefresh = Duration.ofSeconds(60);
        private double policyWeight = Decisions.Weights.DEFAULT.policy();
        private double topologyWeight = Decisions.Weights.DEFAULT.topology();
        private boolean decideInFilter = true;
        private Duration hold = Duration.ofSeconds(30);
        private Optional<Path> modelTable = Optional.empty();

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
            staleReservation = c.staleReservation;
            workloadRefresh = c.workloadRefresh;
            policyWeight = c.policyWeight;
            topologyWeight = c.topologyWeight;
            decideInFilter = c.decideInFilter;
            hold = c.hold;
            modelTable = c.modelTable;
        }

        /** A file of card models' peak TFLOPS over the shipped table; empty for the shipped table alone. */
        public Builder withModelTable(Optional<Path> file) {
            modelTable = file;
            return this;
        }

        /** @throws IllegalArgumentException for anything but host:port, naming {@code --listen} */
        public Builder withListen(String hostPort) {
            listen = ListenAddress.parse("listen (--listen)", hostPort);
            return this;
        }

        public Builder withAllowRemoteCallers(boolean allow) {
            allowRemoteCallers = allow;
            return this;
        }

        /** @param hostPort where to serve metrics and probes alone; empty for nowhere */
        public Builder withMetricsListen(Optional<String> hostPort) {
            metricsListen = hostPort.map(m -> ListenAddress.parse("metricsListen (--metrics-listen)", m));
            return this;
        }

        /** @param certFile the PEM certificate chain to serve HTTPS with; empty for HTTP */
        public Builder withTlsCertFile(Optional<Path> certFile) {
            tlsCertFile = certFile;
            return this;
        }

        /** @param keyFile the certificate's PKCS #8 PEM key; empty for HTTP */
        public Builder withTlsKeyFile(Optional<Path> keyFile) {
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

        public Builder withStaleReservation(Duration age) {
            staleReservation = age;
            return this;
        }

        public Builder withWorkloadRefresh(Duration every) {
            workloadRefresh = every;
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

        public Builder withHold(Duration period) {
            hold = period;
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
                    staleReservation,
                    workloadRefresh,
                    policyWeight,
                    topologyWeight,
                    decideInFilter,
                    hold,
                    modelTable);
        }
    }
}
