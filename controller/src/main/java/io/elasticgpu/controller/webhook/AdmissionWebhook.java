package io.elasticgpu.controller.webhook;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.http.HttpEndpoint;
import io.elasticgpu.http.HttpResponse;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;

/**
 * The mutating admission webhook: an HTTPS server ({@code POST /mutate-pods}, {@code GET /healthz}) that gives pods
 * the GPU resources of the ElasticGPUClaims their annotations name (see {@link ClaimMutation}) and refuses pods whose
 * GPU slices the node agents cannot hold to their shares (see {@link ShareAdmission}), with a CA shared by all
 * replicas through a Secret ({@link WebhookCa}) and a serving certificate of its own that it renews before expiry,
 * registered in the {@code MutatingWebhookConfiguration}. Every controller replica serves it.
 *
 * <p>Requests are served on virtual threads by {@link HttpEndpoint} over TLS.
 *
 * <p>{@link #close()} stops the server but leaves the configuration: with {@code failurePolicy: Fail}, pods naming
 * a claim are refused while the webhook is away; the pods whose shares alone are checked are admitted
 * ({@code failurePolicy: Ignore}), and all other pods are never sent to it ({@link WebhookRegistration}).
 */
public final class AdmissionWebhook implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AdmissionWebhook.class);

    private final HttpEndpoint server;
    private final ScheduledExecutorService rotation;
    private final ServingCertificates certificates;
    private final InetSocketAddress listen;

    private AdmissionWebhook(
            HttpEndpoint server,
            ScheduledExecutorService rotation,
            ServingCertificates certificates,
            InetSocketAddress listen) {
        this.server = server;
        this.rotation = rotation;
        this.certificates = certificates;
        this.listen = listen;
    }

    /**
     * Reads (or, first of all replicas, makes) the shared CA, issues this replica's serving certificate, starts
     * serving, then creates or updates the MutatingWebhookConfiguration with the CA bundle, the same from every
     * replica. The apiserver may take a moment to use a new configuration.
     */
    public static AdmissionWebhook start(KubernetesClient client, WebhookConfig config) {
        ServingCertificates certificates = new ServingCertificates(
                WebhookCa.shared(client, config.caSecret(), config.clock()),
                config.certificateNames(),
                config.certificateLifetime(),
                config.clock());
        SSLContext tls;
        try {
            tls = SSLContext.getInstance("TLS");
            tls.init(new KeyManager[] {certificates.keyManager()}, null, null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot serve TLS", e);
        }
        HttpEndpoint server =
                serve(config.listen().socketAddress(), tls, config.shares(), namespace -> new ClaimMutation.Claims() {
                    @Override
                    public Optional<ElasticGPUClaim> find(String name) {
                        return Optional.ofNullable(client.resources(ElasticGPUClaim.class)
                                .inNamespace(namespace)
                                .withName(name)
                                .get());
                    }

                    @Override
                    public Optional<ElasticGPUClass> gpuClass(String name) {
                        return Optional.ofNullable(client.resources(ElasticGPUClass.class)
                                .withName(name)
                                .get());
                    }
                });
        ScheduledExecutorService rotation = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .daemon()
                .name("webhook-certificate-rotation")
                .factory());
        AdmissionWebhook webhook = new AdmissionWebhook(
                server, rotation, certificates, config.listen().socketAddress());
        try {
            WebhookRegistration.apply(
                    client,
                    WebhookRegistration.configuration(config, webhook.address().getPort(), certificates.caPem()));
        } catch (RuntimeException e) {
            webhook.close();
            throw e;
        }
        long every = config.rotationCheck().toMillis();
        rotation.scheduleWithFixedDelay(webhook::rotateIfDue, every, every, TimeUnit.MILLISECONDS);
        LOG.info(
                "admission webhook on {}, MutatingWebhookConfiguration {}",
                webhook.address(),
                config.configurationName());
        return webhook;
    }

    /** The webhook's routes on {@code listen}: over TLS, or plain HTTP when {@code tls} is null (tests only). */
    static HttpEndpoint serve(
            InetSocketAddress listen,
            SSLContext tls,
            ShareAdmission shares,
            Function<String, ClaimMutation.Claims> claimsIn) {
        HttpEndpoint.Builder builder = HttpEndpoint.on(listen)
                .post(
                        WebhookConfig.PATH,
                        MutatePodsHandler.MAX_BODY_BYTES,
                        new MutatePodsHandler(claimsIn, shares),
                        null)
                .get("/healthz", r -> HttpResponse.text(200, "ok"));
        return (tls == null ? builder : builder.tls(tls)).start("Change the webhook's listen address.");
    }

    private void rotateIfDue() {
        try {
            if (certificates.rotateIfDue()) {
                LOG.info(
                        "renewed the webhook's serving certificate, valid until {}",
                        certificates.serving().getNotAfter().toInstant());
            }
        } catch (RuntimeException e) {
            // A failed renewal is retried at the next check; the current certificate is still served meanwhile.
            LOG.warn("cannot renew the webhook's serving certificate", e);
        }
    }

    /** The address the server listens on (the real port when the config asked for port 0). */
    public InetSocketAddress address() {
        return new InetSocketAddress(listen.getAddress(), server.port());
    }

    /** The webhook's CA certificate as PEM: what the apiserver trusts for this webhook. */
    public String caPem() {
        return certificates.caPem();
    }

    /** Stops serving; the configuration stays. */
    @Override
    public void close() {
        rotation.shutdownNow();
        server.close();
    }
}
