/**
 * One scheduling cycle over a whole cluster: filter the nodes a request fits, score them with a policy (reusing
 * scores of nodes that did not change), select the best with a fixed tie-break, and say why when nothing fits.
 * It reads cluster state and never changes it; callers assume the placement it returns.
 */
package io.elasticgpu.core.placement;
