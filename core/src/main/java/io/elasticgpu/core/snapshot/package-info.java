/**
 * Who holds what: the immutable state of each node (what its pods use, card by card) and the mutable cluster
 * bookkeeping that assumes and forgets placements, plus the fit check that says why a request does not fit.
 * It knows nothing of policies and must never import Kubernetes types.
 */
package io.elasticgpu.core.snapshot;
