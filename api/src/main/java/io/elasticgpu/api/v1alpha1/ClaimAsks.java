package io.elasticgpu.api.v1alpha1;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an ElasticGPUClaim asks, read by the rule every component reads asks with ({@link PodAsks}), and the
 * ResourceClaimTemplate that asks the same through DRA (for a claim of a class with {@code api: dra}): the webhook and
 * the controller both call these.
 */
public final class ClaimAsks {

    /** The request names an ElasticGPUClaim carries, in the order the webhook copies them. */
    public static final List<String> NAMES = List.of(
            ResourceNames.GPU,
            ResourceNames.GPU_MEMORY,
            ResourceNames.GPU_CORE,
            ResourceNames.GPU_COUNT,
            ResourceNames.GPU_TFLOPS);

    private ClaimAsks() {}

    /** The claim's requests among {@link #NAMES}, as strings; empty when it asks none of them. */
    public static Map<String, String> requests(ElasticGPUClaim claim) {
        Map<String, Quantity> requests = claim.getSpec() == null
                        || claim.getSpec().getResources() == null
                        || claim.getSpec().getResources().getRequests() == null
                ? Map.of()
                : claim.getSpec().getResources().getRequests();
        Map<String, String> asked = new LinkedHashMap<>();
        for (String name : NAMES) {
            Quantity quantity = requests.get(name);
            if (quantity != null) {
                asked.put(name, quantity.toString());
            }
        }
        return asked;
    }

    /** The claim's {@code spec.tflopsPrecision} as written; empty when it names none. */
    public static java.util.Optional<String> tflopsPrecision(ElasticGPUClaim claim) {
        return java.util.Optional.ofNullable(
                        claim.getSpec() == null ? null : claim.getSpec().getTflopsPrecision())
                .filter(p -> !p.isBlank());
    }

    /**
     * What container {@code container} asks when it carries {@code requests} as its limits.
     *
     * @throws InvalidAskException when that is not a valid ask, saying why
     */
    public static GpuAsk ask(String container, Map<String, String> requests) {
        Map<String, Quantity> limits = new LinkedHashMap<>();
        requests.forEach((k, v) -> limits.put(k, new Quantity(v)));
        var alone = new PodBuilder()
                .withNewSpec()
                .addNewContainer()
                .withName(container)
                .withNewResources()
                .withLimits(limits)
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        List<GpuAsk> asks = PodAsks.of(alone, PodAsks.Units.DEFAULT);
        if (asks.isEmpty()) {
            throw new InvalidAskException("%s asks none of %s".formatted(container, String.join(", ", NAMES)));
        }
        return asks.getFirst();
    }

    /** Whether claims of {@code gpuClass} (null when it does not exist) are served through DRA. */
    public static boolean throughDra(ElasticGPUClass gpuClass) {
        return gpuClass != null
                && gpuClass.getSpec() != null
                && gpuClass.getSpec().getApi() == ElasticGPUClassSpec.Api.DRA;
    }

    /**
     * The ResourceClaimTemplate {@link DraNames#claimTemplate} of the claim, in its namespace, owned by it (deleted
     * with it): one request {@code gpu} of class {@value DraNames#DRIVER} asking what the claim asks.
     *
     * @throws InvalidAskException when the claim asks what DRA cannot give (a share without memory, TFLOPS)
     */
    public static ResourceClaimTemplate template(ElasticGPUClaim claim) {
        String name = claim.getMetadata().getName();
        GpuAsk ask = ask("claim " + name, requests(claim));
        if (ask.tflops() > 0) {
            throw new InvalidAskException(("claim %s asks %d TFLOPS: through DRA a share's compute is a fixed cores "
                            + "capacity, which kube-scheduler's allocator cannot convert per card model; give the "
                            + "claim a class for device-plugin nodes, or ask elasticgpu.io/gpu-core instead")
                    .formatted(name, ask.tflops()));
        }
        return new ResourceClaimTemplateBuilder()
                .withNewMetadata()
                .withName(DraNames.claimTemplate(name))
                .withNamespace(claim.getMetadata().getNamespace())
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion(claim.getApiVersion())
                        .withKind(claim.getKind())
                        .withName(name)
                        .withUid(claim.getMetadata().getUid())
                        .withController(true)
                        .build())
                .endMetadata()
                .withNewSpec()
                .withNewSpec()
                .withNewDevices()
                .addToRequests(DraAsks.request(ask))
                .endDevices()
                .endSpec()
                .endSpec()
                .build();
    }
}
