package io.elasticgpu.api.v1alpha1;

/**
 * Labels the node agent puts on GPU nodes so that users can select and taint nodes by GPU (seed 002), without
 * reading the inventory.
 */
public final class NodeLabels {

    /**
     * GPU product, with characters a label value cannot hold replaced by {@code -}, e.g. {@code NVIDIA-A100-SXM4-80GB}.
     * */
    public static final String PRODUCT = "elasticgpu.io/gpu.product";
    /** Memory of one card in MiB. */
    public static final String MEMORY = "elasticgpu.io/gpu.memory";
    /** Number of cards. */
    public static final String COUNT = "elasticgpu.io/gpu.count";
    /** NVIDIA driver version. */
    public static final String DRIVER = "elasticgpu.io/gpu.driver";
    /** Present with value {@code true} on every node with Elastic GPU's agent: the DaemonSet's node selector. */
    public static final String PRESENT = "elasticgpu.io/gpu.present";
    /**
     * The one API through which the node's cards are offered: {@link #API_DEVICE_PLUGIN} (extended resources) or
     * {@link #API_DRA} (a ResourceSlice); never both, so that no card is counted twice.
     */
    public static final String API = "elasticgpu.io/gpu.api";

    /**
     * What holds each share to its limits on the node: {@code none}, or {@code mps-per-share}, {@code mps-per-card},
     * {@code mps-v3} (the MPS layout the agent runs); what that holds and what it does not:
     * {@link Annotations#ISOLATION} and docs/isolation.md.
     */
    public static final String ISOLATION = "elasticgpu.io/gpu.isolation";

    public static final String API_DEVICE_PLUGIN = "device-plugin";
    public static final String API_DRA = "dra";

    private NodeLabels() {}

    /** True for a node whose cards are offered through DRA: what its pods hold, their ResourceClaims say. */
    public static boolean dra(java.util.Map<String, String> labels) {
        return labels != null && API_DRA.equals(labels.get(API));
    }

    /**
     * A string made into a valid label value: at most 63 of {@code [A-Za-z0-9._-]}, starting and ending alphanumeric.
     * */
    public static String value(String raw) {
        String v = raw.strip().replaceAll("[^A-Za-z0-9._-]+", "-");
        if (v.length() > 63) {
            v = v.substring(0, 63);
        }
        return v.replaceAll("^[^A-Za-z0-9]+", "").replaceAll("[^A-Za-z0-9]+$", "");
    }
}
