package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUResources;
import io.elasticgpu.controller.webhook.ClaimMutation.Decision;
import io.elasticgpu.controller.webhook.ClaimMutation.PatchOperation;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every answer of the webhook for pods of namespace team-a, whose claims are {@link #CLAIMS}; exact messages. */
class ClaimMutationTest {

    private static final String MEM = "elasticgpu.io/gpu-memory";
    private static final String CORE = "elasticgpu.io/gpu-core";
    private static final String COUNT = "elasticgpu.io/gpu-count";
    private static final String GPU = "elasticgpu.io/gpu";

    /** The claims of team-a. */
    private static final Map<String, ElasticGPUClaim> CLAIMS = Map.of(
            "slice", claim(Map.of(MEM, "4096", CORE, "30")),
            "two-slices", claim(Map.of(MEM, "8192", COUNT, "2")),
            "whole", claim(Map.of(GPU, "2")),
            "hollow", claim(Map.of()),
            // Stored without the CRD's CEL rules (an older version): more than one card's compute, a count of nothing.
            "over-card", claim(Map.of(CORE, "150")),
            "count-alone", claim(Map.of(COUNT, "2")));

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("no annotations: untouched", pod(Map.of(), bare("main")), new Decision.Unchanged()),
                Arguments.of(
                        "other annotations only: untouched",
                        pod(Map.of("elasticgpu.io/allocation", "{}", "egpuc-main", "slice"), bare("main")),
                        new Decision.Unchanged()),
                Arguments.of(
                        "container without resources: the whole resources object is added",
                        pod(Map.of("elasticgpu.io/egpuc-main", "slice"), bare("main")),
                        new Decision.Patch(List.of(add(
                                "/spec/containers/0/resources",
                                Map.of(
                                        "limits",
                                        ordered(MEM, "4096", CORE, "30"),
                                        "requests",
                                        ordered(MEM, "4096", CORE, "30")))))),
                Arguments.of(
                        "container with cpu: limits and requests replaced by theirs plus the claim's",
                        pod(
                                Map.of("elasticgpu.io/egpuc-main", "two-slices"),
                                withResources("main", Map.of("cpu", "1"), Map.of("cpu", "500m"))),
                        new Decision.Patch(List.of(
                                add(
                                        "/spec/containers/0/resources/limits",
                                        ordered("cpu", "1", MEM, "8192", COUNT, "2")),
                                add(
                                        "/spec/containers/0/resources/requests",
                                        ordered("cpu", "500m", MEM, "8192", COUNT, "2"))))),
                Arguments.of(
                        "the claim overrides what the container already asks of the same name",
                        pod(
                                Map.of("elasticgpu.io/egpuc-main", "whole"),
                                withResources("main", Map.of(GPU, "1"), Map.of(GPU, "1"))),
                        new Decision.Patch(List.of(
                                add("/spec/containers/0/resources/limits", ordered(GPU, "2")),
                                add("/spec/containers/0/resources/requests", ordered(GPU, "2"))))),
                Arguments.of(
                        "two containers, two claims: patched in annotation key order (sidecar < trainer)",
                        pod(
                                Map.of("elasticgpu.io/egpuc-trainer", "whole", "elasticgpu.io/egpuc-sidecar", "slice"),
                                bare("trainer"),
                                bare("sidecar")),
                        new Decision.Patch(List.of(
                                add(
                                        "/spec/containers/1/resources",
                                        Map.of(
                                                "limits",
                                                ordered(MEM, "4096", CORE, "30"),
                                                "requests",
                                                ordered(MEM, "4096", CORE, "30"))),
                                add(
                                        "/spec/containers/0/resources",
                                        Map.of("limits", ordered(GPU, "2"), "requests", ordered(GPU, "2")))))),
                Arguments.of(
                        "missing claim",
                        pod(Map.of("elasticgpu.io/egpuc-main", "big-gpu"), bare("main")),
                        new Decision.Rejected(
                                403,
                                "pod team-a/train: container main names ElasticGPUClaim big-gpu,"
                                        + " which does not exist in namespace team-a; create it or fix the annotation"
                                        + " elasticgpu.io/egpuc-main")),
                Arguments.of(
                        "container that does not exist",
                        pod(Map.of("elasticgpu.io/egpuc-mian", "slice"), bare("main"), bare("logs")),
                        new Decision.Rejected(
                                400,
                                "pod team-a/train: annotation elasticgpu.io/egpuc-mian names"
                                        + " container mian, which the pod does not have (containers: main, logs); "
                                        + "the key must"
                                        + " be elasticgpu.io/egpuc-<container>")),
                Arguments.of(
                        "no container name at all",
                        pod(Map.of("elasticgpu.io/egpuc-", "slice"), bare("main")),
                        new Decision.Rejected(
                                400,
                                "pod team-a/train: annotation elasticgpu.io/egpuc- names"
                                        + " container \"\", which the pod does not have (containers: main); the key "
                                        + "must"
                                        + " be elasticgpu.io/egpuc-<container>")),
                Arguments.of(
                        "claim of another namespace",
                        pod(Map.of("elasticgpu.io/egpuc-main", "team-b/slice"), bare("main")),
                        new Decision.Rejected(
                                400,
                                "pod team-a/train: annotation elasticgpu.io/egpuc-main is"
                                        + " team-b/slice, but ElasticGPUClaims are namespaced and a pod can only use "
                                        + "claims of"
                                        + " its own namespace team-a; create the claim in team-a and give its name "
                                        + "alone")),
                Arguments.of(
                        "empty claim name",
                        pod(Map.of("elasticgpu.io/egpuc-main", " "), bare("main")),
                        new Decision.Rejected(
                                400,
                                "pod team-a/train: annotation elasticgpu.io/egpuc-main is empty;"
                                        + " set it to the name of an ElasticGPUClaim in namespace team-a")),
                Arguments.of(
                        "claim asking for none of the four names",
                        pod(Map.of("elasticgpu.io/egpuc-main", "hollow"), bare("main")),
                        new Decision.Rejected(
                                403,
                                "pod team-a/train: container main names ElasticGPUClaim hollow in"
                                        + " namespace team-a, which asks for none of elasticgpu.io/gpu, "
                                        + "elasticgpu.io/gpu-memory,"
                                        + " elasticgpu.io/gpu-core, elasticgpu.io/gpu-count, elasticgpu.io/gpu-tflops;"
                                        + " fix the claim's"
                                        + " spec.resources.requests")),
                Arguments.of(
                        "a claim that bypassed the CRD's validation is refused with what to fix",
                        pod(Map.of("elasticgpu.io/egpuc-main", "over-card"), bare("main")),
                        new Decision.Rejected(
                                403,
                                "pod team-a/train: container main names ElasticGPUClaim over-card"
                                        + " in namespace team-a, which asks what Elastic GPU cannot give: "
                                        + invalid(CORE, "150")
                                        + "; fix the claim's spec.resources.requests (the CRD's validation did not "
                                        + "run on it: was"
                                        + " it written through an older version?)")),
                Arguments.of(
                        "a count without a slice, from a claim that bypassed validation",
                        pod(Map.of("elasticgpu.io/egpuc-main", "count-alone"), bare("main")),
                        new Decision.Rejected(
                                403,
                                "pod team-a/train: container main names ElasticGPUClaim count-alone"
                                        + " in namespace team-a, which asks what Elastic GPU cannot give: "
                                        + invalid(COUNT, "2")
                                        + "; fix the claim's spec.resources.requests (the CRD's validation did not "
                                        + "run on it: was"
                                        + " it written through an older version?)")),
                Arguments.of(
                        "one good and one bad annotation: rejected, nothing patched",
                        pod(
                                Map.of("elasticgpu.io/egpuc-main", "slice", "elasticgpu.io/egpuc-logs", "nope"),
                                bare("main"),
                                bare("logs")),
                        new Decision.Rejected(
                                403,
                                "pod team-a/train: container logs names ElasticGPUClaim nope,"
                                        + " which does not exist in namespace team-a; create it or fix the annotation"
                                        + " elasticgpu.io/egpuc-logs")));
    }

    /** What the one rule of asks says of a container {@code main} asking {@code value} of {@code name}. */
    private static String invalid(String name, String value) {
        Pod alone = new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .addToLimits(name, new io.fabric8.kubernetes.api.model.Quantity(value))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        try {
            io.elasticgpu.api.v1alpha1.PodAsks.of(alone, io.elasticgpu.api.v1alpha1.PodAsks.Units.DEFAULT);
            throw new AssertionError(name + "=" + value + " is a valid ask");
        } catch (io.elasticgpu.api.v1alpha1.InvalidAskException e) {
            return e.getMessage();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(String name, Pod pod, Decision expected) {
        assertThat(ClaimMutation.decide("team-a", pod, claim -> Optional.ofNullable(CLAIMS.get(claim))))
                .isEqualTo(expected);
    }

    @Test
    void aPodNamedByTheApiserverIsCalledByItsGenerateName() {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withGenerateName("train-7f9c-")
                .addToAnnotations("elasticgpu.io/egpuc-main", "big-gpu")
                .endMetadata()
                .withNewSpec()
                .addToContainers(bare("main").build())
                .endSpec()
                .build();

        assertThat(ClaimMutation.decide("team-a", pod, claim -> Optional.empty()))
                .isEqualTo(new Decision.Rejected(
                        403,
                        "pod team-a/train-7f9c-*: container main names ElasticGPUClaim big-gpu, which does not exist in"
                                + " namespace team-a; create it or fix the annotation elasticgpu.io/egpuc-main"));
    }

    /** Issue 13, defect 5: an init container naming a claim was refused as "a container the pod does not have". */
    @Test
    void anInitContainerNamingAClaimIsPatchedAtItsOwnPath() {
        Pod pod = new PodBuilder(pod(
                        Map.of("elasticgpu.io/egpuc-warmup", "slice", "elasticgpu.io/egpuc-main", "whole"),
                        bare("main")))
                .editSpec()
                .addToInitContainers(bare("setup").build(), bare("warmup").build())
                .endSpec()
                .build();

        assertThat(ClaimMutation.decide("team-a", pod, name -> Optional.ofNullable(CLAIMS.get(name))))
                .isEqualTo(new Decision.Patch(List.of(
                        add(
                                "/spec/containers/0/resources",
                                Map.of("limits", ordered(GPU, "2"), "requests", ordered(GPU, "2"))),
                        add(
                                "/spec/initContainers/1/resources",
                                Map.of(
                                        "limits",
                                        ordered(MEM, "4096", CORE, "30"),
                                        "requests",
                                        ordered(MEM, "4096", CORE, "30"))))));
    }

    /** team-a's claims, with class qgpu serving them through DRA. */
    private static final ClaimMutation.Claims THROUGH_DRA = new ClaimMutation.Claims() {
        @Override
        public Optional<ElasticGPUClaim> find(String name) {
            return Optional.ofNullable(CLAIMS.get(name));
        }

        @Override
        public Optional<ElasticGPUClass> gpuClass(String name) {
            ElasticGPUClass dra = ElasticGPUClass.of(
                    name, ElasticGPUClassSpec.Provisioner.QGPU, ElasticGPUClassSpec.ReclaimPolicy.Delete);
            dra.getSpec().setApi(ElasticGPUClassSpec.Api.DRA);
            return Optional.of(dra);
        }
    };

    @Test
    void aClaimOfADraClassBecomesAPodClaimFromItsTemplateThatTheContainerUses() {
        Pod pod = new PodBuilder(pod(
                        Map.of("elasticgpu.io/egpuc-main", "slice"),
                        withResources("main", Map.of("cpu", "1"), Map.of("cpu", "1"))))
                .editSpec()
                .addNewResourceClaim()
                .withName("scratch")
                .withResourceClaimName("disk")
                .endResourceClaim()
                .endSpec()
                .build();

        assertThat(ClaimMutation.decide("team-a", pod, THROUGH_DRA))
                .isEqualTo(new Decision.Patch(List.of(
                        add("/spec/containers/0/resources/claims", List.of(Map.of("name", "egpuc-slice"))),
                        add(
                                "/spec/resourceClaims",
                                List.of(
                                        Map.of("name", "scratch", "resourceClaimName", "disk"),
                                        Map.of("name", "egpuc-slice", "resourceClaimTemplateName", "egpuc-slice"))))));
    }

    @Test
    void aClaimOfADraClassAskingComputeAloneIsRefusedWithWhatToAsk() {
        ElasticGPUClaim computeOnly = claim(Map.of(CORE, "30"));
        ClaimMutation.Claims claims = new ClaimMutation.Claims() {
            @Override
            public Optional<ElasticGPUClaim> find(String name) {
                return Optional.of(computeOnly);
            }

            @Override
            public Optional<ElasticGPUClass> gpuClass(String name) {
                return THROUGH_DRA.gpuClass(name);
            }
        };

        assertThat(ClaimMutation.decide(
                        "team-a", pod(Map.of("elasticgpu.io/egpuc-main", "fast"), bare("main")), claims))
                .isEqualTo(new Decision.Rejected(
                        403,
                        "pod team-a/train: container main names ElasticGPUClaim fast in"
                                + " namespace team-a of class qgpu, which serves its claims through DRA: main asks "
                                + "compute alone"
                                + " (30 % of a card); through DRA a share must name its memory too "
                                + "(elasticgpu.io/gpu-memory),"
                                + " or ask whole cards"));
    }

    private static final String TFLOPS = "elasticgpu.io/gpu-tflops";
    private static final String PRECISION_PATH = "/metadata/annotations/elasticgpu.io~1tflops-precision";

    private static ElasticGPUClaim tflopsClaim(String precision) {
        ElasticGPUClaim claim = claim(Map.of(TFLOPS, "100", MEM, "1280"));
        claim.getSpec().setTflopsPrecision(precision);
        return claim;
    }

    private static Decision decideWith(Map<String, ElasticGPUClaim> claims, Pod pod) {
        return ClaimMutation.decide("team-a", pod, claim -> Optional.ofNullable(claims.get(claim)));
    }

    @Test
    void aClaimsTflopsPrecisionBecomesThePodsPrecisionAnnotationBesideItsRequests() {
        Pod pod = pod(Map.of("elasticgpu.io/egpuc-main", "fp32-claim"), bare("main"));
        Decision decision = decideWith(Map.of("fp32-claim", tflopsClaim("fp32")), pod);
        assertThat(decision)
                .isEqualTo(new Decision.Patch(List.of(
                        add(
                                "/spec/containers/0/resources",
                                Map.of(
                                        "limits",
                                        ordered(MEM, "1280", TFLOPS, "100"),
                                        "requests",
                                        ordered(MEM, "1280", TFLOPS, "100"))),
                        add(PRECISION_PATH, "fp32"))));
        // without a precision of its own, the pod's annotation (or bf16) stays what counts, as before
        assertThat(decideWith(
                        Map.of("plain", tflopsClaim(null)),
                        pod(Map.of("elasticgpu.io/egpuc-main", "plain"), bare("main"))))
                .isInstanceOfSatisfying(
                        Decision.Patch.class,
                        patch -> assertThat(patch.operations())
                                .extracting(PatchOperation::path)
                                .containsExactly("/spec/containers/0/resources"));
    }

    @Test
    void aPodAnnotationThatAgreesWithTheClaimIsKeptAndOneThatDiffersIsRefused() {
        Map<String, ElasticGPUClaim> claims = Map.of("c", tflopsClaim("fp16"));
        Decision same = decideWith(
                claims,
                pod(Map.of("elasticgpu.io/egpuc-main", "c", "elasticgpu.io/tflops-precision", "FP16"), bare("main")));
        assertThat(same)
                .isInstanceOfSatisfying(
                        Decision.Patch.class,
                        patch -> assertThat(patch.operations())
                                .extracting(PatchOperation::path)
                                .doesNotContain(PRECISION_PATH));
        assertThat(decideWith(
                        claims,
                        pod(
                                Map.of("elasticgpu.io/egpuc-main", "c", "elasticgpu.io/tflops-precision", "bf16"),
                                bare("main"))))
                .isEqualTo(new Decision.Rejected(
                        400,
                        "pod team-a/train: annotation elasticgpu.io/tflops-precision is bf16, but it names"
                                + " ElasticGPUClaims asking TFLOPS of fp16 (c: fp16); remove the annotation (the"
                                + " claims set it) or make them agree"));
    }

    @Test
    void claimsOfDifferentPrecisionsInOnePodAreRefusedNamingEach() {
        Pod pod = pod(
                Map.of("elasticgpu.io/egpuc-main", "a", "elasticgpu.io/egpuc-side", "b"), bare("main"), bare("side"));
        assertThat(decideWith(Map.of("a", tflopsClaim("fp32"), "b", tflopsClaim("bf16")), pod))
                .isEqualTo(new Decision.Rejected(
                        400,
                        "pod team-a/train: its containers name ElasticGPUClaims asking TFLOPS in different precisions"
                                + " (a: fp32, b: bf16), and a pod's TFLOPS are counted in one"
                                + " (elasticgpu.io/tflops-precision); name claims of one spec.tflopsPrecision"));
    }

    /** What the CRD refuses, for a claim stored before its rules: the webhook says so too. */
    @Test
    void anUnknownPrecisionOrOneOnAClaimWithoutTflopsIsRefusedWithWhatToChange() {
        Pod pod = pod(Map.of("elasticgpu.io/egpuc-main", "c"), bare("main"));
        assertThat(decideWith(Map.of("c", tflopsClaim("fp64")), pod))
                .isEqualTo(new Decision.Rejected(
                        403,
                        "pod team-a/train: container main names ElasticGPUClaim c in namespace team-a, whose"
                                + " spec.tflopsPrecision: precision \"fp64\" is not one of fp32, tf32, fp16, bf16,"
                                + " int8; fix the claim's spec (the CRD's validation did not run on it: was it written"
                                + " through an older version?)"));
        ElasticGPUClaim slice = claim(Map.of(MEM, "4096", CORE, "30"));
        slice.getSpec().setTflopsPrecision("fp32");
        assertThat(decideWith(Map.of("c", slice), pod))
                .isEqualTo(new Decision.Rejected(
                        403,
                        "pod team-a/train: container main names ElasticGPUClaim c in namespace team-a, whose"
                                + " spec.tflopsPrecision is fp32 but it asks no elasticgpu.io/gpu-tflops: ask"
                                + " elasticgpu.io/gpu-tflops, or remove spec.tflopsPrecision; fix the claim's spec (the"
                                + " CRD's validation did not run on it: was it written through an older version?)"));
    }

    /** The CRD's list of precisions is core's, written again in CEL: the two must not drift apart. */
    @Test
    void theCrdsPrecisionsAreCoresPrecisions() {
        assertThat(io.elasticgpu.api.v1alpha1.ValidationMessages.TFLOPS_PRECISIONS_CEL)
                .isEqualTo(java.util.Arrays.stream(io.elasticgpu.core.model.Precision.values())
                        .map(p -> "'" + p.label() + "'")
                        .collect(java.util.stream.Collectors.joining(", ", "[", "]")));
        assertThat(io.elasticgpu.api.v1alpha1.ValidationMessages.TFLOPS_PRECISION_UNKNOWN)
                .contains(io.elasticgpu.core.model.Precision.known());
    }

    @Test
    void namesAClaimIsWhatTheMatchConditionChecks() {
        assertThat(ClaimMutation.namesAClaim(pod(Map.of("elasticgpu.io/egpuc-main", "x"), bare("main"))))
                .isTrue();
        assertThat(ClaimMutation.namesAClaim(pod(Map.of("elasticgpu.io/allocation", "x"), bare("main"))))
                .isFalse();
        assertThat(ClaimMutation.namesAClaim(pod(Map.of(), bare("main")))).isFalse();
    }

    static Pod pod(Map<String, String> annotations, ContainerBuilder... containers) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("train")
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withContainers(
                        Stream.of(containers).map(ContainerBuilder::build).toList())
                .endSpec()
                .build();
    }

    static ContainerBuilder bare(String name) {
        return new ContainerBuilder().withName(name).withImage("trainer:1");
    }

    private static ContainerBuilder withResources(
            String name, Map<String, String> limits, Map<String, String> requests) {
        return bare(name)
                .withNewResources()
                .withLimits(quantities(limits))
                .withRequests(quantities(requests))
                .endResources();
    }

    static ElasticGPUClaim claim(Map<String, String> requests) {
        ElasticGPUClaim claim = new ElasticGPUClaim();
        claim.setSpec(new ElasticGPUClaimSpec());
        claim.getSpec().setElasticGPUClassName("qgpu");
        claim.getSpec().setResources(new ElasticGPUResources());
        claim.getSpec().getResources().setRequests(quantities(requests));
        return claim;
    }

    private static Map<String, Quantity> quantities(Map<String, String> values) {
        Map<String, Quantity> result = new LinkedHashMap<>();
        values.forEach((k, v) -> result.put(k, new Quantity(v)));
        return result;
    }

    /** A map in the given order (key, value, key, value …). */
    private static Map<String, String> ordered(String... pairs) {
        Map<String, String> result = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            result.put(pairs[i], pairs[i + 1]);
        }
        return result;
    }

    private static PatchOperation add(String path, Object value) {
        return new PatchOperation("add", path, value);
    }
}
