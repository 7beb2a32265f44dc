package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import java.util.Map;

/** What an {@link ElasticGPUClass} says; mutable bean because fabric8 and Jackson fill it. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public class ElasticGPUClassSpec {

    /** The backend that makes ElasticGPUs of this class. */
    public enum Provisioner {
        /** Whole physical cards. */
        @JsonProperty("elasticgpu.io/physical")
        PHYSICAL,
        /** Memory slices of a card, shared without compute isolation. */
        @JsonProperty("elasticgpu.io/gpushare")
        GPU_SHARE,
        /** Compute and memory slices of a card, isolated. */
        @JsonProperty("elasticgpu.io/qgpu")
        QGPU
    }

    /** What happens to an ElasticGPU when its claim is deleted. */
    public enum ReclaimPolicy {
        Retain,
        Delete
    }

    /** When a claim of this class is bound: at once, or when the first pod using it is scheduled. */
    public enum BindingMode {
        Immediate,
        WaitForFirstConsumer
    }

    /**
     * How pods get the cards of a claim of this class: as our extended resources (device plugin nodes, and for whole
     * cards DRA nodes too, through the DeviceClass mapping), or as a ResourceClaim made from the claim (DRA nodes
     * only).
     */
    public enum Api {
        @JsonProperty("device-plugin")
        DEVICE_PLUGIN,
        @JsonProperty("dra")
        DRA
    }

    @Required
    private Provisioner provisioner;

    private Map<String, String> parameters;

    @Default("Delete")
    private ReclaimPolicy reclaimPolicy;

    @Default("WaitForFirstConsumer")
    private BindingMode bindingMode;

    @Default("device-plugin")
    private Api api;

    public Provisioner getProvisioner() {
        return provisioner;
    }

    public void setProvisioner(Provisioner provisioner) {
        this.provisioner = provisioner;
    }

    /** Provisioner-specific settings, passed through unread. */
    public Map<String, String> getParameters() {
        return parameters;
    }

    public void setParameters(Map<String, String> parameters) {
        this.parameters = parameters;
    }

    public ReclaimPolicy getReclaimPolicy() {
        return reclaimPolicy;
    }

    public void setReclaimPolicy(ReclaimPolicy reclaimPolicy) {
        this.reclaimPolicy = reclaimPolicy;
    }

    public BindingMode getBindingMode() {
        return bindingMode;
    }

    public void setBindingMode(BindingMode bindingMode) {
        this.bindingMode = bindingMode;
    }

    /** Null (as stored before the field existed) reads as {@link Api#DEVICE_PLUGIN}. */
    public Api getApi() {
        return api;
    }

    public void setApi(Api api) {
        this.api = api;
    }
}
