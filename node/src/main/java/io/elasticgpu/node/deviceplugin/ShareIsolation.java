package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.node.allocation.ContainerGrant;
import io.elasticgpu.node.isolation.MpsDirs;
import java.util.Optional;

/**
 * What holds a grant to its share before kubelet is answered: the directories of the share's MPS daemon to mount
 * into the container, or nothing where no daemon holds it (isolation off, a whole card).
 */
@FunctionalInterface
public interface ShareIsolation {

    /**
     * @throws io.elasticgpu.node.allocation.AllocationException when the share cannot be held (kubelet then fails the
     *                                                           container instead of running it unheld)
     */
    Optional<MpsDirs> isolate(ContainerGrant grant);

    ShareIsolation NONE = grant -> Optional.empty();
}
