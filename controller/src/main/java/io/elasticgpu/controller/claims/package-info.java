/**
 * Claims, as pure functions: which claim each container of a pod names, which class (and so reclaim policy) a claim
 * has, and the phase each claim should be in given the ElasticGPUs that exist and the health of their cards. It
 * must never import the fabric8 client (model objects only) nor the {@code provisioning} package, which uses it.
 */
package io.elasticgpu.controller.claims;
