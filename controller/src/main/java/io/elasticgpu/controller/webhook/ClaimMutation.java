package io.elasticgpu.controller.webhook;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ClaimAnnotations;
import io.elasticgpu.api.v1alpha1.ClaimAsks;
import io.elasticgpu.api.v1alpha1.DraAsks;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Precision;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the webhook does to a pod being created: for every annotation {@code elasticgpu.io/egpuc-<container>: <claim>},
 * copy the claim's {@code elasticgpu.io/gpu|gpu-memory|gpu-core|gpu-count} requests into that container's
 * {@code resources.limits} and {@code resources.requests} (equal, as extended resources must be); or, for a claim whose
 * class serves it through DRA, give the pod the claim made from the claim's template and the container a reference
 * to it ({@link DraClaimPatch}). A claim asking TFLOPS in a precision of its own ({@code spec.tflopsPrecision})
 * gives the pod the annotation {@code elasticgpu.io/tflops-precision}, which the extender and the node agent read;
 * claims of different precisions, or a pod annotation saying otherwise, reject the pod. A pure function: claims and
 * classes come through {@link Claims}, the answer is a {@link Decision}.
 *
 * <p>Annotations are handled in key order and the first problem rejects the pod, so a pod with several bad
 * annotations hears about one at a time. The container may be an app container or an init container (restartable
 * "sidecars" included): Kubernetes keeps names unique across both, and an init container that trains or warms a
 * cache on the GPU needs its share as much as the app does.
 */
public final class ClaimMutation {

    /** The annotation key prefix; the rest of the key is the container's name. */
    public static final String ANNOTATION_PREFIX = ClaimAnnotations.PREFIX;
    /** The request names copied from a claim, in patch order. */
    static final List<String> COPIED = ClaimAsks.NAMES;

    /** HTTP status of a pod whose annotation is malformed: the pod itself must change. */
    public static final int BAD_REQUEST = 400;
    /** HTTP status of a pod naming a claim that does not exist (yet) or asks nothing: the claim must change. */
    public static final int FORBIDDEN = 403;

    /** The claims of the pod's namespace, by name, and the classes they name. */
    @FunctionalInterface
    public interface Claims {
        Optional<ElasticGPUClaim> find(String name);

        /** The class {@code name}; empty when it does not exist (its claims are served as extended resources). */
        default Optional<ElasticGPUClass> gpuClass(String name) {
            return Optional.empty();
        }
    }

    /** One RFC 6902 operation; {@code value} is JSON-ready (maps and strings). */
    public record PatchOperation(String op, String path, Object value) {
        static PatchOperation add(String path, Object value) {
            return new PatchOperation("add", path, value);
        }
    }

    /** The answer for one pod: a closed set. */
    public sealed interface Decision {
        /** The pod names no claim: admit it as it is. */
        record Unchanged() implements Decision {}

        /** Admit the pod with these operations applied. */
        record Patch(List<PatchOperation> operations) implements Decision {
            public Patch {
                operations = List.copyOf(operations);
            }
        }

        /** Refuse the pod; {@code message} says what to change. */
        record Rejected(int code, String message) implements Decision {}
    }

    private ClaimMutation() {}

    /**
     * @param namespace the namespace the pod is created in (the admission request's, which a pod's own metadata may
     *                  leave empty)
     */
    public static Decision decide(String namespace, Pod pod, Claims claims) {
        Map<String, String> annotations =
                pod.getMetadata() == null || pod.getMetadata().getAnnotations() == null
                        ? Map.of()
                        : new TreeMap<>(pod.getMetadata().getAnnotations());
        String podName = namespace + "/" + podName(pod);
        List<Container> containers = containersOf(pod);
        List<PatchOperation> operations = new ArrayList<>();
        Set<String> draClaims = new LinkedHashSet<>();
        Map<String, String> precisionByClaim = new TreeMap<>(); // claim -> the spec.tflopsPrecision it names
        for (Map.Entry<String, String> annotation : annotations.entrySet()) {
            String key = annotation.getKey();
            if (!key.startsWith(ANNOTATION_PREFIX)) {
                continue;
            }
            String containerName = key.substring(ANNOTATION_PREFIX.length());
            String claimName =
                    annotation.getValue() == null ? "" : annotation.getValue().strip();
            int index = indexOf(containers, containerName);
            if (index < 0) {
                return new Decision.Rejected(
                        BAD_REQUEST,
                        ("pod %s: annotation %s names container %s, which the pod"
                                        + " does not have (containers: %s); the key must be %s<container>")
                                .formatted(
                                        podName,
                                        key,
                                        containerName.isEmpty() ? "\"\"" : containerName,
                                        String.join(
                                                ", ",
                                                containers.stream()
                                                        .map(Container::getName)
                                                        .toList()),
                                        ANNOTATION_PREFIX));
            }
            if (claimName.isEmpty()) {
                return new Decision.Rejected(
                        BAD_REQUEST,
                        ("pod %s: annotation %s is empty; set it to the name of"
                                        + " an ElasticGPUClaim in namespace %s")
                                .formatted(podName, key, namespace));
            }
            if (claimName.contains("/")) {
                return new Decision.Rejected(
                        BAD_REQUEST,
                        ("pod %s: annotation %s is %s, but ElasticGPUClaims are"
                                        + " namespaced and a pod can only use claims of its own namespace %s; create "
                                        + "the claim in %s"
                                        + " and give its name alone")
                                .formatted(podName, key, claimName, namespace, namespace));
            }
            Optional<ElasticGPUClaim> claim = claims.find(claimName);
            if (claim.isEmpty()) {
                return new Decision.Rejected(
                        FORBIDDEN,
                        ("pod %s: container %s names ElasticGPUClaim %s, which does"
                                        + " not exist in namespace %s; create it or fix the annotation %s")
                                .formatted(podName, containerName, claimName, namespace, key));
            }
            Map<String, String> asked = ClaimAsks.requests(claim.get());
            if (asked.isEmpty()) {
                return new Decision.Rejected(
                        FORBIDDEN,
                        ("pod %s: container %s names ElasticGPUClaim %s in namespace"
                                        + " %s, which asks for none of %s; fix the claim's spec.resources.requests")
                                .formatted(podName, containerName, claimName, namespace, String.join(", ", COPIED)));
            }
            GpuAsk ask;
            try {
                ask = ClaimAsks.ask(containerName, asked);
            } catch (InvalidAskException e) {
                return new Decision.Rejected(
                        FORBIDDEN,
                        ("pod %s: container %s names ElasticGPUClaim %s in namespace"
                                        + " %s, which asks what Elastic GPU cannot give: %s; fix the claim's "
                                        + "spec.resources.requests"
                                        + " (the CRD's validation did not run on it: was it written through an older "
                                        + "version?)")
                                .formatted(podName, containerName, claimName, namespace, e.getMessage()));
            }
            Optional<String> precision = ClaimAsks.tflopsPrecision(claim.get());
            if (precision.isPresent()) {
                Optional<String> wrong = precisionProblem(ask, precision.get());
                if (wrong.isPresent()) {
                    return new Decision.Rejected(
                            FORBIDDEN,
                            ("pod %s: container %s names ElasticGPUClaim %s in namespace %s, whose %s; fix the"
                                            + " claim's spec (the CRD's validation did not run on it: was it written"
                                            + " through an older version?)")
                                    .formatted(podName, containerName, claimName, namespace, wrong.get()));
                }
                precisionByClaim.put(claimName, Precision.parse(precision.get()).label());
            }
            String className =
                    claim.get().getSpec() == null ? null : claim.get().getSpec().getElasticGPUClassName();
            if (className != null
                    && ClaimAsks.throughDra(claims.gpuClass(className).orElse(null))) {
                Optional<String> why = notThroughDra(ask);
                if (why.isPresent()) {
                    return new Decision.Rejected(
                            FORBIDDEN,
                            ("pod %s: container %s names ElasticGPUClaim %s in namespace %s"
                                            + " of class %s, which serves its claims through DRA: %s")
                                    .formatted(podName, containerName, claimName, namespace, className, why.get()));
                }
                operations.add(DraClaimPatch.container(path(pod, index), containers.get(index), claimName));
                draClaims.add(claimName);
            } else {
                operations.addAll(patch(path(pod, index), containers.get(index), asked));
            }
        }
        if (!draClaims.isEmpty()) {
            operations.add(DraClaimPatch.pod(pod, draClaims));
        }
        if (!precisionByClaim.isEmpty()) {
            Set<String> precisions = new java.util.TreeSet<>(precisionByClaim.values());
            if (precisions.size() > 1) {
                return new Decision.Rejected(
                        BAD_REQUEST,
                        ("pod %s: its containers name ElasticGPUClaims asking TFLOPS in different precisions (%s),"
                                        + " and a pod's TFLOPS are counted in one (%s); name claims of one"
                                        + " spec.tflopsPrecision")
                                .formatted(
                                        podName, claimsAndPrecisions(precisionByClaim), Annotations.TFLOPS_PRECISION));
            }
            String precision = precisions.iterator().next();
            String own = annotations.get(Annotations.TFLOPS_PRECISION);
            if (own == null) {
                operations.add(PatchOperation.add(
                        "/metadata/annotations/"
                                + Annotations.TFLOPS_PRECISION
                                        .replace("~", "~0")
                                        .replace("/", "~1"),
                        precision));
            } else if (!precision.equals(label(own))) {
                return new Decision.Rejected(
                        BAD_REQUEST,
                        ("pod %s: annotation %s is %s, but it names ElasticGPUClaims asking TFLOPS of %s (%s);"
                                        + " remove the annotation (the claims set it) or make them agree")
                                .formatted(
                                        podName,
                                        Annotations.TFLOPS_PRECISION,
                                        own,
                                        precision,
                                        claimsAndPrecisions(precisionByClaim)));
            }
        }
        return operations.isEmpty() ? new Decision.Unchanged() : new Decision.Patch(operations);
    }

    /**
     * What is wrong with a claim's {@code spec.tflopsPrecision} of {@code precision} for its ask, if anything (what the
     * CRD's rules refuse, for a claim written before them): an unknown precision, or one on a claim asking no TFLOPS.
     */
    private static Optional<String> precisionProblem(GpuAsk ask, String precision) {
        if (ask.tflops() == 0) {
            return Optional.of("spec.tflopsPrecision is %s but it asks no %s: ask %s, or remove spec.tflopsPrecision"
                    .formatted(precision, ResourceNames.GPU_TFLOPS, ResourceNames.GPU_TFLOPS));
        }
        try {
            Precision.parse(precision);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of("spec.tflopsPrecision: " + e.getMessage());
        }
    }

    /** The pod's own precision annotation as a label, or the text itself when it names none. */
    private static String label(String annotation) {
        try {
            return Precision.parse(annotation).label();
        } catch (IllegalArgumentException e) {
            return annotation;
        }
    }

    /** {@code a: fp32, b: bf16}. */
    private static String claimsAndPrecisions(Map<String, String> precisionByClaim) {
        return precisionByClaim.entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue())
                .collect(java.util.stream.Collectors.joining(", "));
    }

    /** Whether the pod has a claim annotation at all (what the webhook's matchCondition checks on the apiserver). */
    public static boolean namesAClaim(Pod pod) {
        return pod.getMetadata() != null
                && pod.getMetadata().getAnnotations() != null
                && pod.getMetadata().getAnnotations().keySet().stream().anyMatch(k -> k.startsWith(ANNOTATION_PREFIX));
    }

    /** The app containers, then the init containers: the order {@link #path} counts in. */
    private static List<Container> containersOf(Pod pod) {
        List<Container> all = new ArrayList<>();
        if (pod.getSpec() != null && pod.getSpec().getContainers() != null) {
            all.addAll(pod.getSpec().getContainers());
        }
        if (pod.getSpec() != null && pod.getSpec().getInitContainers() != null) {
            all.addAll(pod.getSpec().getInitContainers());
        }
        return all;
    }

    /** The JSON pointer of the {@code index}-th of {@link #containersOf}. */
    private static String path(Pod pod, int index) {
        int apps = pod.getSpec().getContainers() == null
                ? 0
                : pod.getSpec().getContainers().size();
        return index < apps ? "/spec/containers/" + index : "/spec/initContainers/" + (index - apps);
    }

    private static List<PatchOperation> patch(String containerPath, Container container, Map<String, String> asked) {
        String resources = containerPath + "/resources";
        if (container.getResources() == null) {
            Map<String, Object> both = new LinkedHashMap<>(); // ordered, for a patch that reads the same every time
            both.put("limits", asked);
            both.put("requests", asked);
            return List.of(PatchOperation.add(resources, both));
        }
        // "add" on an existing member replaces it (RFC 6902 4.1): the whole map, the container's own names kept.
        return List.of(
                PatchOperation.add(
                        resources + "/limits", merged(container.getResources().getLimits(), asked)),
                PatchOperation.add(
                        resources + "/requests", merged(container.getResources().getRequests(), asked)));
    }

    private static Map<String, String> merged(Map<String, Quantity> existing, Map<String, String> asked) {
        Map<String, String> result = new LinkedHashMap<>();
        if (existing != null) {
            existing.forEach((name, quantity) -> result.put(name, quantity.toString()));
        }
        result.putAll(asked);
        return result;
    }

    /** Why DRA cannot give {@code ask}, if it cannot (a share naming no memory). */
    private static Optional<String> notThroughDra(GpuAsk ask) {
        try {
            DraAsks.request(ask);
            return Optional.empty();
        } catch (InvalidAskException e) {
            return Optional.of(e.getMessage());
        }
    }

    private static int indexOf(List<Container> containers, String name) {
        for (int i = 0; i < containers.size(); i++) {
            if (name.equals(containers.get(i).getName())) {
                return i;
            }
        }
        return -1;
    }

    /** The pod's name, or for a pod named by the apiserver (a ReplicaSet's), its {@code generateName} and a star. */
    static String podName(Pod pod) {
        if (pod.getMetadata() == null) {
            return "";
        }
        String name = pod.getMetadata().getName();
        if (name != null && !name.isEmpty()) {
            return name;
        }
        return pod.getMetadata().getGenerateName() == null
                ? ""
                : pod.getMetadata().getGenerateName() + "*";
    }
}
