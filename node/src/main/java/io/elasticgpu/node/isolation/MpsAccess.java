package io.elasticgpu.node.isolation;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a share's containers are given to reach the MPS server that holds them: host paths mounted into the container
 * and variables set in its environment. Which, depends on the layout ({@link IsolationConfig.Layout}); limits are in
 * the environment only in the per-card layout, where nothing else can hold them. Immutable.
 *
 * @param mounts host path → container path, in the order they were decided
 * @param env    variable → value
 */
public record MpsAccess(Map<String, String> mounts, Map<String, String> env) {

    /** Where a container sees its share's pipe directory; {@code CUDA_MPS_PIPE_DIRECTORY} says so. */
    public static final String CONTAINER_PIPE = "/tmp/nvidia-mps";
    /** Where a container sees its share's shared memory. */
    public static final String CONTAINER_SHM = "/dev/shm";

    public MpsAccess {
        mounts = Collections.unmodifiableMap(new LinkedHashMap<>(mounts));
        env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
    }

    /**
     * A pipe directory mounted at {@link #CONTAINER_PIPE} (also MPS's default location, so unsetting the variable
     * changes nothing), and a shared-memory directory at {@link #CONTAINER_SHM} unless {@code shm} is null.
     */
    static MpsAccess of(String pipe, String shm, Map<String, String> limits) {
        Map<String, String> mounts = new LinkedHashMap<>();
        mounts.put(pipe, CONTAINER_PIPE);
        if (shm != null) {
            mounts.put(shm, CONTAINER_SHM);
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CUDA_MPS_PIPE_DIRECTORY", CONTAINER_PIPE);
        env.putAll(limits);
        return new MpsAccess(mounts, env);
    }
}
