package io.elasticgpu.cli;

import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.scheduler.extender.ExtenderConfig;
import io.elasticgpu.scheduler.extender.ExtenderService;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
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
            "Flags override the configuration file, which overrides the defaults."
        })
final class SchedulerCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", description = "Extender configuration (YAML).")
    Path config;

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
    String tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The certificate's PKCS #8 private key.")
    String tlsKey;

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
    String modelTable;

    @Mixin
    LoggingOptions logging;

    /**
     * The defaults, overridden by the file, overridden by the flags given; checked once, all together.
     *
     * @throws IllegalArgumentException naming the setting that is wrong, its value and what to write instead
     */
    ExtenderConfig config() {
        ExtenderConfig.Builder c = config == null
                ? ExtenderConfig.builder()
                : ExtenderConfig.builder().withFile(config);
        if (listen != null) {
            c.withListen(listen);
        }
        metricsListen.given().ifPresent(m -> c.withMetricsListen(m.equals(MetricsListenOption.OFF) ? null : m));
        if (allowRemoteCallers != null) {
            c.withAllowRemoteCallers(allowRemoteCallers);
        }
        if (policy != null) {
            c.withPolicy(PolicyName.parse(policy));
        }
        if (ledgerNamespace != null) {
            c.withLedgerNamespace(ledgerNamespace);
        }
        units.memoryBlockMibGiven().ifPresent(c::withMemoryBlockMib);
        units.aliyunUnitMibGiven().ifPresent(c::withAliyunUnitMib);
        if (tlsCert != null) {
            c.withTlsCertFile(tlsCert);
        }
        if (tlsKey != null) {
            c.withTlsKeyFile(tlsKey);
        }
        if (policyWeight != null) {
            c.withPolicyWeight(policyWeight);
        }
        if (topologyWeight != null) {
            c.withTopologyWeight(topologyWeight);
        }
        if (decideInFilter != null) {
            c.withDecideInFilter(decideInFilter);
        }
        if (modelTable != null) {
            c.withModelTable(modelTable);
        }
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
