package io.elasticgpu.controller.provisioning;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import java.util.Map;

/** The labels on the ElasticGPUs this controller makes; it never touches one without them. */
public final class ManagedLabels {

    public static final String MANAGED_BY = "elasticgpu.io/managed-by";
    public static final String CONTROLLER = "egpu-controller";
    /** The uid of the pod whose allocation the ElasticGPU stands for. */
    public static final String POD_UID = "elasticgpu.io/pod-uid";

    private ManagedLabels() {}

    public static boolean isManaged(ElasticGPU gpu) {
        Map<String, String> labels = gpu.getMetadata().getLabels();
        return labels != null && CONTROLLER.equals(labels.get(MANAGED_BY));
    }
}
