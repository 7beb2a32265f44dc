package io.elasticgpu.controller.webhook;

import io.elasticgpu.http.tls.CertificateAuthority;
import io.elasticgpu.http.tls.IssuedCertificate;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook's CA, shared by every controller replica through one Secret ({@code ca.crt}, {@code ca.key}): the
 * first replica to start makes it, the others read it, and each replica issues and renews its own serving
 * certificate from it. The caBundle every replica registers is then the same, so the apiserver trusts whichever
 * replica the Service sends it to, and a leader change or a replica's restart loses no admission. Creation races
 * are settled by the API server (create fails with 409 for the loser, who reads the winner's); an unreadable Secret
 * is replaced under its resourceVersion. The CA lives {@link ServingCertificates#CA_LIFETIME}.
 */
final class WebhookCa {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookCa.class);
    static final String CERTIFICATE = "ca.crt";
    static final String KEY = "ca.key";
    private static final int ATTEMPTS = 5;

    private WebhookCa() {}

    /** @throws IllegalStateException when no CA could be agreed on, saying what to check */
    static CertificateAuthority shared(KubernetesClient client, WebhookConfig.SecretRef ref, InstantSource clock) {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Secret secret = client.secrets()
                    .inNamespace(ref.namespace())
                    .withName(ref.name())
                    .get();
            Optional<CertificateAuthority> kept = secret == null ? Optional.empty() : read(secret, ref, clock);
            if (kept.isPresent()) {
                return kept.get();
            }
            CertificateAuthority fresh =
                    CertificateAuthority.create("elastic-gpu-webhook-ca", ServingCertificates.CA_LIFETIME, clock);
            try {
                write(client, ref, fresh, secret);
                LOG.info("made the webhook CA and kept it in Secret {}/{}", ref.namespace(), ref.name());
                return fresh;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw new IllegalStateException(
                            "cannot write the webhook CA to Secret %s/%s: %s; the controller's"
                                            .formatted(ref.namespace(), ref.name(), e.getMessage())
                                    + " ServiceAccount needs get, create and update on secrets in that namespace",
                            e);
                }
                // Another replica wrote it first: read theirs.
            }
        }
        throw new IllegalStateException(
                "replicas kept replacing each other's webhook CA in Secret %s/%s; is something else writing it?"
                        .formatted(ref.namespace(), ref.name()));
    }

    private static Optional<CertificateAuthority> read(
            Secret secret, WebhookConfig.SecretRef ref, InstantSource clock) {
        Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
        try {
            IssuedCertificate ca = IssuedCertificate.fromPem(decode(data.get(CERTIFICATE)), decode(data.get(KEY)));
            return Optional.of(CertificateAuthority.of(ca, clock));
        } catch (IllegalArgumentException e) {
            LOG.warn("Secret {}/{} holds no usable CA ({}); replacing it", ref.namespace(), ref.name(), e.getMessage());
            return Optional.empty();
        }
    }

    /** Creates the Secret, or replaces {@code old} only if nobody changed it since it was read. */
    private static void write(
            KubernetesClient client, WebhookConfig.SecretRef ref, CertificateAuthority ca, Secret old) {
        Secret secret = new SecretBuilder()
                .withNewMetadata()
                .withName(ref.name())
                .withNamespace(ref.namespace())
                .addToLabels("app.kubernetes.io/part-of", "elastic-gpu")
                .withResourceVersion(old == null ? null : old.getMetadata().getResourceVersion())
                .endMetadata()
                .withType("Opaque")
                .addToData(CERTIFICATE, encode(ca.certificate().certificatePem()))
                .addToData(KEY, encode(ca.certificate().privateKeyPem()))
                .build();
        if (old == null) {
            client.secrets().inNamespace(ref.namespace()).resource(secret).create();
        } else {
            client.secrets().inNamespace(ref.namespace()).resource(secret).update();
        }
    }

    private static String decode(String base64) {
        if (base64 == null) {
            throw new IllegalArgumentException("missing key");
        }
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    private static String encode(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
