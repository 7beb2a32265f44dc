package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** What an {@link ElasticGPUClaim} asks for; mutable bean because fabric8 and Jackson fill it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ElasticGPUClaimSpec {

    @Required
    private String elasticGPUClassName;

    @Required
    private ElasticGPUResources resources;

    @ValidationRule(
            value = "self in " + ValidationMessages.TFLOPS_PRECISIONS_CEL,
            message = ValidationMessages.TFLOPS_PRECISION_UNKNOWN,
            messageExpression = ValidationMessages.TFLOPS_PRECISION_UNKNOWN_EXPRESSION)
    private String tflopsPrecision;

    /** The {@link ElasticGPUClass} whose provisioner serves this claim. */
    public String getElasticGPUClassName() {
        return elasticGPUClassName;
    }

    public void setElasticGPUClassName(String elasticGPUClassName) {
        this.elasticGPUClassName = elasticGPUClassName;
    }

    public ElasticGPUResources getResources() {
        return resources;
    }

    public void setResources(ElasticGPUResources resources) {
        this.resources = resources;
    }

    /**
     * The precision the claim's {@code elasticgpu.io/gpu-tflops} are counted in ({@code fp32}, {@code tf32},
     * {@code fp16}, {@code bf16}, {@code int8}); null for the pod's {@link Annotations#TFLOPS_PRECISION} (bf16 when it
     * has none). The webhook gives a pod using the claim that annotation.
     */
    public String getTflopsPrecision() {
        return tflopsPrecision;
    }

    public void setTflopsPrecision(String tflopsPrecision) {
        this.tflopsPrecision = tflopsPrecision;
    }
}
