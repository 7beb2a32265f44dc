package io.elasticgpu.cli;

import io.elasticgpu.controller.provisioning.InstalledCrds;
import io.elasticgpu.controller.provisioning.Leadership;
import io.elasticgpu.controller.service.ControllerConfig;
import io.elasticgpu.controller.service.ControllerService;
import io.elasticgpu.controller.webhook.ShareAdmission;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.http.ListenAddress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code egpu controller}: keeps one ElasticGPU per GPU allocation and binds claims, as the leader of a Lease unless
 * told otherwise. Installs nothing: without the CRDs it stops and says how to install them.
 */
@Command(
        name = "controller",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Keep an ElasticGPU for every GPU allocation in the cluster and bind ElasticGPU claims.")
final class ControllerCommand implements Callable<Integer> {

    @Mixin
    ConfigOption config;

    @Mixin
    KubeconfigOption kubeconfig;

    @Option(
            names = "--namespace-for-lease",
            paramLabel = "NS",
            defaultValue = "elastic-gpu-system",
            description =
                    "Namespace of the Lease egpu-controller used for leader election (default: ${DEFAULT-VALUE}).")
    String leaseNamespace;

    @Option(names = "--no-leader-election", description = "Run the controller at once; only for a single replica.")
    boolean noLeaderElection;

    @Option(
            names = "--webhook-listen",
            paramLabel = "HOST:PORT",
            defaultValue = "0.0.0.0:9443",
            description = "Where the admission webhook serves HTTPS (default: ${DEFAULT-VALUE}).")
    String webhookListen;

    @Option(
            names = "--webhook-service",
            paramLabel = "NAME",
            defaultValue = "elastic-gpu-webhook",
            description = "The Service in front of the webhook, in the lease's namespace (default: ${DEFAULT-VALUE}).")
    String webhookService;

    @Option(
            names = "--webhook-url",
            paramLabel = "HOST:PORT",
            description = "Register the webhook at https://HOST:PORT/mutate-pods instead of through --webhook-service:"
                    + " a controller outside the cluster, or a balancer in front of several replicas.")
    String webhookUrl;

    @Option(names = "--no-webhook", description = "Do not serve or register the admission webhook.")
    boolean noWebhook;

    @Mixin
    IsolationOption isolation;

    @Option(
            names = "--mps-context-reserve-mib",
            paramLabel = "MIB",
            defaultValue = "1024",
            description = "With --isolation mps: MiB of each process's share the node agents keep out of its MPS"
                    + " memory limit for its CUDA context, which MPS does not count; the webhook refuses a share that"
                    + " leaves a process no more than this (default ${DEFAULT-VALUE}). The node agents' value.")
    long mpsContextReserveMib;

    @Mixin
    UnitOptions units;

    @Option(
            names = "--http-listen",
            paramLabel = "HOST:PORT",
            defaultValue = "0.0.0.0:8080",
            description = "Where every replica serves the dashboard /ui/, /api/v1/cluster, /metrics and /healthz "
                    + "over plain HTTP (default: ${DEFAULT-VALUE}).")
    String httpListen;

    @Option(
            names = "--model-table",
            paramLabel = "FILE.csv",
            description = "Card models' peak TFLOPS that extend and override the shipped table, as the extender's"
                    + " --model-table: the webhook's MPS check of TFLOPS asks and the dashboard's free TFLOPS use it.")
    Path modelTable;

    @Mixin
    LoggingOptions logging;

    @Spec
    CommandSpec spec;

    private final Function<Path, KubernetesClient> clients;
    private final Function<KubernetesClient, Optional<String>> crdCheck;

    ControllerCommand() {
        this(KubernetesClients::create, InstalledCrds::missing);
    }

    ControllerCommand(Function<Path, KubernetesClient> clients, Function<KubernetesClient, Optional<String>> crdCheck) {
        this.clients = clients;
        this.crdCheck = crdCheck;
    }

    @Override
    public Integer call() {
        logging.apply();
        ControllerConfig config = config(); // bad values stop here, before anything connects
        try (KubernetesClient client = clients.apply(kubeconfig.path())) {
            Optional<String> missing;
            try {
                missing = crdCheck.apply(client);
            } catch (KubernetesClientException e) {
                spec.commandLine().getErr().println("egpu controller: cannot reach the API server: " + e.getMessage());
                return Egpu.UNAVAILABLE;
            }
            if (missing.isPresent()) {
                spec.commandLine().getErr().println("egpu controller: " + missing.get());
                return Egpu.UNAVAILABLE;
            }
            ControllerService service;
            try {
                service = ControllerService.start(client, config);
            } catch (UncheckedIOException e) {
                spec.commandLine().getErr().println("egpu controller: " + e.getMessage());
                return Egpu.UNAVAILABLE;
            }
            return runUntilStopped(service); // closes the service
        }
    }

    /** The flags as the controller's configuration. */
    ControllerConfig config() {
        ControllerConfig.Builder config = ControllerConfig.builder()
                .withHttpListen(ListenAddress.parse("httpListen (--http-listen)", httpListen))
                .withLeaseNamespace(leaseNamespace)
                .withModels(ModelTableOption.read(modelTable));
        if (noLeaderElection) {
            config.withoutLeaderElection();
        }
        if (!noWebhook) {
            config.withWebhook(webhookConfig());
        }
        return config.build();
    }

    /** Until SIGTERM, or until this replica loses the Lease (then 1, so that a fresh replica campaigns again). */
    private int runUntilStopped(ControllerService service) {
        CompletableFuture<Void> stopped = new CompletableFuture<>();
        CountDownLatch closed = new CountDownLatch(1);
        // On SIGTERM: stop, and keep the JVM up until the controller is closed and the lease given up.
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            stopped.complete(null);
                            try {
                                closed.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "controller-shutdown"));
        try {
            CompletableFuture.anyOf(stopped, service.lost()).join();
            if (service.lost().isDone() && !stopped.isDone()) {
                spec.commandLine()
                        .getErr()
                        .println("egpu controller: lost the lease " + leaseNamespace + "/" + Leadership.LEASE_NAME
                                + "; exiting so that a fresh replica campaigns again");
                return 1;
            }
            return 0;
        } finally {
            service.close();
            closed.countDown();
        }
    }

    private WebhookConfig webhookConfig() {
        ListenAddress listen = ListenAddress.parse("webhookListen (--webhook-listen)", webhookListen);
        if (webhookUrl == null) {
            return WebhookConfig.forService(listen, webhookService, leaseNamespace)
                    .withShares(shares())
                    .build();
        }
        ListenAddress url = ListenAddress.parse("webhookUrl (--webhook-url)", webhookUrl);
        return WebhookConfig.forUrl(listen, url.host())
                .withUrl(url.host(), url.port())
                .withCaSecret(leaseNamespace, WebhookConfig.CA_SECRET_NAME)
                .withShares(shares())
                .build();
    }

    /**
     * What the webhook checks of pods asking GPU slices: the node agents' isolation, context reserve and units, the
     * model table.
     */
    ShareAdmission shares() {
        return new ShareAdmission(
                isolation.forWebhook(), mpsContextReserveMib, units.units(), ModelTableOption.read(modelTable));
    }
}
