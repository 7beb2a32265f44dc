package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.node.allocation.ContainerGrant;
import io.elasticgpu.node.isolation.MpsAccess;
import java.util.Optional;

/**
 * What holds a grant to its share before kubelet is answered: what the container is given to reach the MPS server
 * that holds its share, or nothing where none holds it (isolation off, a whole card).
 */
@FunctionalInterface
public interface ShareIsolation {

    /**
     * @throws io.elasticgpu.node.allocation.AllocationException when the share cannot be held (kubelet then fails the
     *                                                           container instead of running it unheld)
     */
    Optional<MpsAccess> isolate(ContainerGrant grant);

    ShareIsolation NONE = grant -> Optional.empty();
}
