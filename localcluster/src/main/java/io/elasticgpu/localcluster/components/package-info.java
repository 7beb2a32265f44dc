/**
 * Elastic GPU's own commands run as real processes against the local control plane, exactly as a cluster runs them:
 * the {@code egpu} jar, started, probed, stopped or killed. It imports no component code, only the jar's path.
 */
package io.elasticgpu.localcluster.components;
