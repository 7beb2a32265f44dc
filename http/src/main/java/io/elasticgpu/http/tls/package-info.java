/**
 * Certificates for our HTTPS endpoints, made with BouncyCastle: a {@link io.elasticgpu.http.tls.CertificateAuthority}
 * that issues server and client certificates (the webhook's serving certificate, the test control plane's PKI), and
 * PEM in and out through {@link io.elasticgpu.http.tls.IssuedCertificate}.
 */
package io.elasticgpu.http.tls;
