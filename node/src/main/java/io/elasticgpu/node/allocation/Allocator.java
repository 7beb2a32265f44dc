package io.elasticgpu.node.allocation;

import java.util.List;

/** Answers kubelet's allocation calls for one sharing mode. Thread-safe: kubelet may call from several plugins. */
public interface Allocator {

    /**
     * What the container kubelet is admitting gets for {@code ids} of {@code resource}.
     *
     * @throws AllocationException when it cannot be answered without breaking a rule
     */
    ContainerGrant allocate(String resource, List<String> ids);

    /** Which {@code size} of {@code available} (including {@code mustInclude}) the agent would rather give. */
    List<String> preferred(String resource, List<String> available, List<String> mustInclude, int size);
}
