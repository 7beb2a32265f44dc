/**
 * Certificates for a local control plane: an ECDSA P-256 certificate authority and the serving and client
 * certificates it issues, written as PEM. The JDK verifies and parses X.509 but cannot build it, hence the small DER
 * writer here; this package must never import cluster or test code.
 */
package io.elasticgpu.e2e.pki;
