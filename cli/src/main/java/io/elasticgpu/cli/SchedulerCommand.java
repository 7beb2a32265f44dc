package io.elasticgpu.cli;

import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.scheduler.extender.ExtenderConfig;
import io.elasticgpu.scheduler.extender.ExtenderService;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code egpu scheduler}: the kube-scheduler extender, until SIGTERM. */
@Command(
        name = "scheduler",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Serve the kube-scheduler extender protocol (filter, prioritize, bind) for GPU pods.",
            "A flag overrides its environment variable EGPU_<KEY>, which overrides the configuration file's key,"
                    + " which overrides the default."
        })
final class SchedulerCommand implements Callable<Integer> {

    @Mixin
    ConfigOption config;

    @Mixin
    KubeconfigOption kubeconfig;

    @Option(
            names = "--listen",
            paramLabel = "HOST:PORT",
            description =
                    "Where to serve the verbs (default 127.0.0.1:8888): a loopback address beside kube-scheduler.")
    String listen;

    @Mixin
    MetricsListenOption metricsListen;

    @Option(
            names = "--allow-remote-callers",
            description = "Serve the verbs on a non-loopback --listen, to anyone who can reach it (not recommended).")
    Boolean allowRemoteCallers;

    @Option(
            names = "--policy",
            paramLabel = "NAME",
            description = "Placement policy (default " + Policies.DEFAULT + "; elastic without the rollouts).")
    String policy;

    @Option(
            names = "--ledger-namespace",
            paramLabel = "NS",
            description = "Namespace of the per-node ledgers (default elastic-gpu-system).")
    String ledgerNamespace;

    @Mixin
    UnitOptions units;

    @Option(names = "--tls-cert", paramLabel = "PEM", description = "Serve HTTPS with this certificate chain.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The certificate's PKCS #8 private key.")
    Path tlsKey;

    @Option(
            names = "--policy-weight",
            paramLabel = "W",
            description = "Weight of the policy's ranking in scores (default 1).")
    Double policyWeight;

    @Option(
            names = "--topology-weight",
            paramLabel = "W",
            description = "Weight of the links between a multi-card pod's cards in scores (default 2).")
    Double topologyWeight;

    @Option(
            names = "--decide-in-filter",
            negatable = true,
            paramLabel = "BOOL",
            description =
                    "The filter passes only the node the policy ranks best and holds the pod's cards there at once"
                            + " (default true; --no-decide-in-filter leaves the choice to kube-scheduler's scores).")
    Boolean decideInFilter;

    @Option(
            names = "--model-table",
            paramLabel = "FILE.csv",
            description = "Card models' peak TFLOPS that extend and override the shipped table, for asks in"
                    + " elasticgpu.io/gpu-tflops (rows as in gpu-models.csv: name,aliases,fp32,tf32,fp16,bf16,int8,"
                    + "source).")
    Path modelTable;

    @Option(
            names = "--stale-reservation-age",
            paramLabel = "DURATION",
            description = "Age after which the ledger's reservation of a pod nobody bound is dropped (ISO-8601, at"
                    + " least PT10S; default PT60S).")
    Duration staleReservation;

    @Option(
            names = "--workload-refresh-interval",
            paramLabel = "DURATION",
            description = "How often the policies re-estimate the workload from the pods they see (ISO-8601, default"
                    + " PT60S).")
    Duration workloadRefresh;

    @Option(
            names = "--hold-period",
            paramLabel = "DURATION",
            description = "How long the deciding filter holds a pod's cards when no bind follows (ISO-8601, default"
                    + " PT30S).")
    Duration hold;

    @Option(
            names = "--gpu-resource",
            paramLabel = "NAME",
            description = "The whole-card resource, if renamed (default " + ResourceNames.GPU + ").")
    String gpu;

    @Option(
            names = "--gpu-memory-resource",
            paramLabel = "NAME",
            description = "The GPU-memory resource, if renamed (default " + ResourceNames.GPU_MEMORY + ").")
    String gpuMemory;

    @Option(
            names = "--gpu-core-resource",
            paramLabel = "NAME",
            description = "The compute-share resource, if renamed (default " + ResourceNames.GPU_CORE + ").")
    String gpuCore;

    @Option(
            names = "--gpu-count-resource",
            paramLabel = "NAME",
            description = "The cards-per-share resource, if renamed (default " + ResourceNames.GPU_COUNT + ").")
    String gpuCount;

    @Mixin
    LoggingOptions logging;

    /**
     * Each setting from its flag, environment variable or file key ({@link ConfigSource}), else the default; checked
     * once, all together.
     *
     * @throws IllegalArgumentException naming the setting that is wrong, its value and what to write instead
     */
    ExtenderConfig config() {
        ExtenderConfig.Builder c = ExtenderConfig.builder()
                .withMetricsListen(metricsListen.given().filter(m -> !m.equals(MetricsListenOption.OFF)))
                .withMemoryBlockMib(units.memoryBlockMib)
                .withAliyunUnitMib(units.aliyunUnitMib)
                .withTlsCertFile(Optional.ofNullable(tlsCert))
                .withTlsKeyFile(Optional.ofNullable(tlsKey))
                .withModelTable(Optional.ofNullable(modelTable));
        Optional.ofNullable(listen).ifPresent(c::withListen);
        Optional.ofNullable(allowRemoteCallers).ifPresent(c::withAllowRemoteCallers);
        Optional.ofNullable(policy).map(PolicyName::parse).ifPresent(c::withPolicy);
        Optional.ofNullable(ledgerNamespace).ifPresent(c::withLedgerNamespace);
        Optional.ofNullable(policyWeight).ifPresent(c::withPolicyWeight);
        Optional.ofNullable(topologyWeight).ifPresent(c::withTopologyWeight);
        Optional.ofNullable(decideInFilter).ifPresent(c::withDecideInFilter);
        Optional.ofNullable(staleReservation).ifPresent(c::withStaleReservation);
        Optional.ofNullable(workloadRefresh).ifPresent(c::withWorkloadRefresh);
        Optional.ofNullable(hold).ifPresent(c::withHold);
        Optional.ofNullable(gpu).ifPresent(c::withGpu);
        Optional.ofNullable(gpuMemory).ifPresent(c::withGpuMemory);
        Optional.ofNullable(gpuCore).ifPresent(c::withGpuCore);
        Optional.ofNullable(gpuCount).ifPresent(c::withGpuCount);
        return c.build();
    }

    @Override
    public Integer call() throws InterruptedException {
        logging.apply();
        ExtenderConfig c = config();
        KubernetesClient client = kubeconfig.client();
        ExtenderService service = ExtenderService.start(client, c);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            service.close();
                            client.close();
                            stop.countDown();
                        },
                        "extender-shutdown"));
        stop.await();
        return 0;
    }
}
