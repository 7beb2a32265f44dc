package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/**
 * The GPU an {@link ElasticGPUClaim} asks for, keyed by the names of {@link ResourceNames}: whole cards
 * ({@code elasticgpu.io/gpu}) or a slice ({@code gpu-memory} and/or {@code gpu-core}, on {@code gpu-count} cards),
 * whose compute may be asked in TFLOPS ({@code gpu-tflops} with {@code gpu-memory}; the precision is the claim's
 * {@code spec.tflopsPrecision}, else the pod's {@link Annotations#TFLOPS_PRECISION}).
 * The CEL rules below are checked by the apiserver; their messages are {@link ValidationMessages}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ElasticGPUResources {

    // Quantities are int-or-string in the schema, so the rules read them through CEL's quantity library.
    @Required
    @Size(max = 5)
    @ValidationRule(value = "self.size() > 0", message = ValidationMessages.REQUESTS_EMPTY)
    @ValidationRule(
            value = "self.all(k, k in ['elasticgpu.io/gpu', 'elasticgpu.io/gpu-memory', 'elasticgpu.io/gpu-core',"
                    + " 'elasticgpu.io/gpu-count', 'elasticgpu.io/gpu-tflops'])",
            message = ValidationMessages.REQUESTS_UNKNOWN_NAME)
    @ValidationRule(
            value = "self.all(k, isQuantity(string(self[k])) && quantity(string(self[k])).isInteger()"
                    + " && quantity(string(self[k])).asInteger() >= 1)",
            message = ValidationMessages.REQUESTS_NOT_POSITIVE)
    @ValidationRule(
            value = "!('elasticgpu.io/gpu' in self && ('elasticgpu.io/gpu-memory' in self"
                    + " || 'elasticgpu.io/gpu-core' in self || 'elasticgpu.io/gpu-tflops' in self))",
            message = ValidationMessages.WHOLE_AND_SLICE)
    @ValidationRule(
            value = "!('elasticgpu.io/gpu-core' in self) || !isQuantity(string(self['elasticgpu.io/gpu-core']))"
                    + " || quantity(string(self['elasticgpu.io/gpu-core'])).compareTo(quantity('100')) <= 0",
            message = ValidationMessages.CORE_ABOVE_ONE_CARD,
            messageExpression = ValidationMessages.CORE_ABOVE_ONE_CARD_EXPRESSION)
    @ValidationRule(
            value = "!('elasticgpu.io/gpu-count' in self) || 'elasticgpu.io/gpu-memory' in self"
                    + " || 'elasticgpu.io/gpu-core' in self",
            message = ValidationMessages.COUNT_WITHOUT_SLICE)
    @ValidationRule(
            value = "!('elasticgpu.io/gpu-tflops' in self) || 'elasticgpu.io/gpu-memory' in self"
                    + " && !('elasticgpu.io/gpu-core' in self)",
            message = ValidationMessages.TFLOPS_WITH_MEMORY_ALONE)
    private Map<String, Quantity> requests;

    public Map<String, Quantity> getRequests() {
        return requests;
    }

    public void setRequests(Map<String, Quantity> requests) {
        this.requests = requests;
    }
}
