package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;

/** What an {@link ElasticGPUClaim} asks for; mutable bean because fabric8 and Jackson fill it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ElasticGPUClaimSpec {

    @Required
    private String elasticGPUClassName;

    @Required
    private ElasticGPUResources resources;

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
}
