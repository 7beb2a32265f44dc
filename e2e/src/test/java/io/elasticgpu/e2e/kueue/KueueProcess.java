package io.elasticgpu.e2e.kueue;

import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.controlplane.Versions;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceConversionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Kueue's manager ({@code sigs.k8s.io/kueue/cmd/kueue}, {@code KUEUE_VERSION} of {@code e2e/versions.env}, built with
 * its CRDs by {@code e2e/bin/build-binaries}) as its own process against the test's control plane, as its chart runs
 * it but for what a cluster without Services needs: its webhooks are not registered (the tests' Jobs are created
 * suspended and labelled with their queue, which is what Kueue's mutating webhook would do), so its webhook
 * configurations exist empty, for its certificate manager to inject its CA into; the five CRDs whose conversion that
 * manager also injects name a conversion webhook on Kueue's own port, which the apiserver never calls because every
 * client here (Kueue and the tests) uses the stored version, {@code v1beta2}. Only the {@code batch/job} integration,
 * and all-or-nothing admission ({@code waitForPodsReady} with {@code blockAdmission}).
 */
final class KueueProcess implements AutoCloseable {

    static final String NAMESPACE = "kueue-system";
    private static final String SERVICE = "kueue-webhook-service";
    private static final String SECRET = "kueue-webhook-server-cert";
    private static final Set<String> CONVERTED = Set.of(
            "localqueues.kueue.x-k8s.io",
            "clusterqueues.kueue.x-k8s.io",
            "workloads.kueue.x-k8s.io",
            "cohorts.kueue.x-k8s.io",
            "multikueueclusters.kueue.x-k8s.io");

    private final ManagedProcess process;

    private KueueProcess(ManagedProcess process) {
        this.process = process;
    }

    /** Installs Kueue's CRDs and starts its manager; returns once it answers ready. */
    static KueueProcess start(ControlPlane cp) throws IOException {
        Path e2e = Binaries.E2E_DIR;
        String version = Versions.entries(e2e.resolve("versions.env")).get("KUEUE_VERSION");
        Path dir = Binaries.binDir(e2e).resolve("kueue-" + version);
        Path binary = dir.resolve("kueue");
        if (!Files.isExecutable(binary) || !Files.isDirectory(dir.resolve("crds"))) {
            throw new IllegalStateException("kueue " + version + " is not built in " + dir
                    + "; build it with e2e/bin/build-binaries (needs Go and the Go module proxy)");
        }
        int webhookPort = Ports.free();
        int healthPort = Ports.free();
        try (KubernetesClient client = cp.newClient()) {
            installCrds(client, dir.resolve("crds"), webhookPort);
            client.resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(NAMESPACE)
                            .endMetadata()
                            .build())
                    .createOr(existing -> existing.update());
            // the certificate manager fills the Secret its chart creates empty
            client.resource(new SecretBuilder()
                            .withNewMetadata()
                            .withName(SECRET)
                            .withNamespace(NAMESPACE)
                            .endMetadata()
                            .build())
                    .createOr(existing -> existing.update());
            client.resource(new MutatingWebhookConfigurationBuilder()
                            .withNewMetadata()
                            .withName("kueue-mutating-webhook-configuration")
                            .endMetadata()
                            .build())
                    .createOr(existing -> existing.update());
            client.resource(new ValidatingWebhookConfigurationBuilder()
                            .withNewMetadata()
                            .withName("kueue-validating-webhook-configuration")
                            .endMetadata()
                            .build())
                    .createOr(existing -> existing.update());
        }
        Path work = Files.createDirectories(cp.workDir().resolve("kueue-" + System.nanoTime()));
        Path config = Files.writeString(work.resolve("config.yaml"), configuration(work, webhookPort, healthPort));
        ManagedProcess process = ManagedProcess.start(
                "kueue",
                List.of(
                        binary.toString(),
                        "--config",
                        config.toString(),
                        "--kubeconfig",
                        cp.kubeconfig().toString(),
                        // its on-demand visibility API would need an APIService and its own serving certificate
                        "--feature-gates",
                        "VisibilityOnDemand=false",
                        "--zap-log-level",
                        "info"),
                cp.workDir().resolve("logs").resolve("kueue-" + System.nanoTime() + ".log"));
        mountCertificates(cp, process, work.resolve("certs"));
        process.awaitAnswering(URI.create("http://127.0.0.1:" + healthPort + "/readyz"), Duration.ofSeconds(120));
        return new KueueProcess(process);
    }

    /**
     * What kubelet does for Kueue's pod: once its certificate manager has filled the Secret, its keys become files in
     * the webhook's certificate directory, which the manager waits for.
     */
    private static void mountCertificates(ControlPlane cp, ManagedProcess process, Path certs) throws IOException {
        Files.createDirectories(certs);
        try (KubernetesClient client = cp.newClient()) {
            process.awaitReady(
                    () -> {
                        Secret secret = client.secrets()
                                .inNamespace(NAMESPACE)
                                .withName(SECRET)
                                .get();
                        Map<String, String> data = secret == null ? null : secret.getData();
                        if (data == null || !data.containsKey("tls.crt") || !data.containsKey("tls.key")) {
                            return false;
                        }
                        for (Map.Entry<String, String> e : data.entrySet()) {
                            Files.write(
                                    certs.resolve(e.getKey()),
                                    Base64.getDecoder().decode(e.getValue()));
                        }
                        return true;
                    },
                    Duration.ofSeconds(60));
        }
    }

    private static void installCrds(KubernetesClient client, Path crds, int webhookPort) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(crds)) {
            files = s.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
        List<String> names = new java.util.ArrayList<>();
        for (Path f : files) {
            CustomResourceDefinition crd;
            try (InputStream in = Files.newInputStream(f)) {
                crd = client.apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .load(in)
                        .item();
            }
            if (CONVERTED.contains(crd.getMetadata().getName())) {
                crd.getSpec()
                        .setConversion(new CustomResourceConversionBuilder()
                                .withStrategy("Webhook")
                                .withNewWebhook()
                                .withConversionReviewVersions("v1")
                                .withNewClientConfig()
                                .withUrl("https://127.0.0.1:" + webhookPort + "/convert")
                                .endClientConfig()
                                .endWebhook()
                                .build());
            }
            crd.getMetadata().setResourceVersion(null);
            client.resource(crd).forceConflicts().serverSideApply();
            names.add(crd.getMetadata().getName());
        }
        for (String name : names) {
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(name)
                    .waitUntilCondition(
                            c -> c != null
                                    && c.getStatus() != null
                                    && c.getStatus().getConditions() != null
                                    && c.getStatus().getConditions().stream()
                                            .anyMatch(k ->
                                                    "Established".equals(k.getType()) && "True".equals(k.getStatus())),
                            60,
                            TimeUnit.SECONDS);
        }
    }

    private static String configuration(Path work, int webhookPort, int healthPort) {
        return """
                apiVersion: config.kueue.x-k8s.io/v1beta2
                kind: Configuration
                namespace: %s
                health:
                  healthProbeBindAddress: 127.0.0.1:%d
                metrics:
                  bindAddress: "0"
                webhook:
                  host: 127.0.0.1
                  port: %d
                  certDir: %s
                leaderElection:
                  leaderElect: false
                internalCertManagement:
                  enable: true
                  webhookServiceName: %s
                  webhookSecretName: %s
                waitForPodsReady:
                  timeout: 60s
                  blockAdmission: true
                integrations:
                  frameworks:
                  - batch/job
                """.formatted(NAMESPACE, healthPort, webhookPort, work.resolve("certs"), SERVICE, SECRET);
    }

    /** The end of its log, for a failing test's message. */
    String tail() {
        return process.tail(40);
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(10));
    }
}
