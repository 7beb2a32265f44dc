package io.elasticgpu.controller.webhook;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;

import io.fabric8.kubernetes.client.KubernetesClient;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;

/**
 * The mutating admission webhook: an HTTPS server ({@code POST /mutate-pods}, {@code GET /healthz}) that gives pods
 * the GPU resources of the ElasticGPUClaims their annotations name (see {@link ClaimMutation}), with its own CA and a
 * serving certificate it renews before expiry, registered in the {@code MutatingWebhookConfiguration}.
 *
 * <p>Requests are served on virtual threads by the JDK's {@link HttpsServer}. That server delays small responses by
 * Nagle's algorithm unless {@code -Dsun.net.httpserver.nodelay=true}; {@link #start} sets the property when it is
 * not set (the server reads it once, when its class is first used).
 *
 * <p>{@link #close()} stops the server but leaves the configuration: with {@code failurePolicy: Fail}, pods naming
 * a claim are refused while the webhook is away, and all other pods are never sent to it.
 */
public final class AdmissionWebhook implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AdmissionWebhook.class);

    private final HttpsServer server;
    private final ExecutorService requests;
    private final ScheduledExecutorService rotation;
    private final ServingCertificates certificates;

    private AdmissionWebhook(HttpsServer server, ExecutorService requests, ScheduledExecutorService rotation,
                             ServingCertificates certificates) {
        this.server = server;
        this.requests = requests;
        this.rotation = rotation;
        this.certificates = certificates;
    }

    /**
     * Makes a CA and serving certificate, starts serving, then creates or updates the MutatingWebhookConfiguration
     * with the CA bundle. The apiserver may take a moment to use a new configuration.
     */
    public static AdmissionWebhook start(KubernetesClient client, WebhookConfig config) {
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        ServingCertificates certificates = new ServingCertificates(config.certificateNames(),
                config.certificateLifetime(), config.clock());
        HttpsServer server;
        try {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(new KeyManager[] {certificates.keyManager()}, null, null);
            server = HttpsServer.create(config.listen(), 0);
            server.setHttpsConfigurator(new HttpsConfigurator(tls));
        } catch (IOException e) {
            throw new UncheckedIOException("the admission webhook cannot listen on " + config.listen(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot serve TLS", e);
        }
        server.createContext(WebhookConfig.PATH, new MutatePodsHandler(namespace -> name -> Optional.ofNullable(
                client.resources(ElasticGPUClaim.class).inNamespace(namespace).withName(name).get())));
        server.createContext("/healthz", exchange -> {
            try (exchange) {
                byte[] ok = "ok\n".getBytes(StandardCharsets.US_ASCII);
                exchange.sendResponseHeaders(200, ok.length);
                exchange.getResponseBody().write(ok);
            }
        });
        ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(requests);
        server.start();
        ScheduledExecutorService rotation = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("webhook-certificate-rotation").factory());
        AdmissionWebhook webhook = new AdmissionWebhook(server, requests, rotation, certificates);
        try {
            WebhookRegistration.apply(client, WebhookRegistration.configuration(config, webhook.address().getPort(),
                    certificates.caPem()));
        } catch (RuntimeException e) {
            webhook.close();
            throw e;
        }
        long every = config.rotationCheck().toMillis();
        rotation.scheduleWithFixedDelay(webhook::rotateIfDue, every, every, TimeUnit.MILLISECONDS);
        LOG.info("admission webhook on {}, MutatingWebhookConfiguration {}",
                webhook.address(), config.configurationName());
        return webhook;
    }

    private void rotateIfDue() {
        try {
            if (certificates.rotateIfDue()) {
                LOG.info("renewed the webhook's serving certificate, valid until {}",
                        certificates.serving().getNotAfter().toInstant());
            }
        } catch (RuntimeException e) {
            // A failed renewal is retried at the next check; the current certificate is still served meanwhile.
            LOG.warn("cannot renew the webhook's serving certificate", e);
        }
    }

    /** The address the server listens on (the real port when the config asked for port 0). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** The webhook's CA certificate as PEM: what the apiserver trusts for this webhook. */
    public String caPem() {
        return certificates.caPem();
    }

    /** Stops serving, waiting at most a second for requests in flight; the configuration stays. */
    @Override
    public void close() {
        rotation.shutdownNow();
        server.stop(1);
        requests.shutdownNow();
    }
}
