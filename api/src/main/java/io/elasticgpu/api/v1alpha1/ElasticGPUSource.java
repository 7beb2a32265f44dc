package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Where an {@link ElasticGPU} comes from: exactly one of a whole physical card, a gpushare memory slice or a qGPU
 * compute-and-memory slice (a CEL rule; the message is {@link ValidationMessages#EXACTLY_ONE_SOURCE}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "(has(self.physical) ? 1 : 0) + (has(self.gpuShare) ? 1 : 0) + (has(self.qGPU) ? 1 : 0) == 1",
        message = ValidationMessages.EXACTLY_ONE_SOURCE)
public class ElasticGPUSource {

    /** The card a source lives on. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Card {
        @Required
        private String nodeName;

        @Required
        @Min(0)
        private Integer index;

        private String uuid;

        public String getNodeName() {
            return nodeName;
        }

        public void setNodeName(String nodeName) {
            this.nodeName = nodeName;
        }

        /** The card's index on its node, as NVML numbers it. */
        public Integer getIndex() {
            return index;
        }

        public void setIndex(Integer index) {
            this.index = index;
        }

        /** The card's UUID, e.g. {@code GPU-5fd4…}, when known. */
        public String getUuid() {
            return uuid;
        }

        public void setUuid(String uuid) {
            this.uuid = uuid;
        }
    }

    private Card physical;
    private Card gpuShare;

    @JsonProperty("qGPU")
    private Card qGPU;

    public Card getPhysical() {
        return physical;
    }

    public void setPhysical(Card physical) {
        this.physical = physical;
    }

    public Card getGpuShare() {
        return gpuShare;
    }

    public void setGpuShare(Card gpuShare) {
        this.gpuShare = gpuShare;
    }

    @JsonProperty("qGPU")
    public Card getQGPU() {
        return qGPU;
    }

    @JsonProperty("qGPU")
    public void setQGPU(Card qGPU) {
        this.qGPU = qGPU;
    }
}
