package io.elasticgpu.controller.provisioning;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUSource;
import io.elasticgpu.api.v1alpha1.ElasticGPUSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus.Phase;
import io.elasticgpu.controller.claims.ClaimKey;
import io.elasticgpu.controller.claims.Holding;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What one managed ElasticGPU says, as a value: equal values mean nothing to change. Made from a pod's allocation
 * ({@link Desired}) or read back from the API ({@link #from}). Immutable.
 *
 * @param capacity resource name → whole number, as in the spec ({@code elasticgpu.io/gpu: 1} for a whole card)
 * @param claimRef the claim it is bound to, or null
 */
public record DesiredGpu(
        String name,
        String podUid,
        String node,
        int card,
        String uuid,
        Source source,
        Map<String, String> capacity,
        PodRef podRef,
        ClaimRef claimRef,
        Phase phase) {

    /** Which of the spec's sources is set. */
    public enum Source {
        PHYSICAL,
        GPU_SHARE,
        QGPU
    }

    /** The pod and container that hold it. */
    public record PodRef(String namespace, String name, String container) {}

    /** The claim it is bound to; {@code uid} may be null when unknown. */
    public record ClaimRef(String namespace, String name, String uid) {
        public ClaimKey key() {
            return new ClaimKey(namespace, name);
        }
    }

    public DesiredGpu {
        requireNonNull(name, "name");
        requireNonNull(node, "node");
        requireNonNull(source, "source");
        requireNonNull(phase, "phase");
        capacity = Collections.unmodifiableMap(new TreeMap<>(requireNonNull(capacity, "capacity")));
    }

    public DesiredGpu withPhase(Phase newPhase) {
        return new DesiredGpu(name, podUid, node, card, uuid, source, capacity, podRef, claimRef, newPhase);
    }

    /** The claim holding, when it is bound to one and not released. */
    public Optional<Holding> holding() {
        if (claimRef == null || phase == Phase.Released) {
            return Optional.empty();
        }
        return Optional.of(new Holding(name, claimRef.key(), claimRef.uid(), node, card));
    }

    /** The object to create; its status is written separately (status subresource). */
    public ElasticGPU toResource() {
        ElasticGPU gpu = new ElasticGPU();
        ObjectMeta meta = new ObjectMeta();
        meta.setName(name);
        meta.setLabels(labels());
        gpu.setMetadata(meta);
        gpu.setSpec(spec());
        gpu.setStatus(status());
        return gpu;
    }

    Map<String, String> labels() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(ManagedLabels.MANAGED_BY, ManagedLabels.CONTROLLER);
        if (podUid != null) {
            labels.put(ManagedLabels.POD_UID, podUid);
        }
        return labels;
    }

    ElasticGPUSpec spec() {
        ElasticGPUSpec spec = new ElasticGPUSpec();
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        capacity.forEach((k, v) -> quantities.put(k, new Quantity(v)));
        spec.setCapacity(quantities);
        ElasticGPUSource.Card where = new ElasticGPUSource.Card();
        where.setNodeName(node);
        where.setIndex(card);
        where.setUuid(uuid);
        ElasticGPUSource src = new ElasticGPUSource();
        switch (source) {
            case PHYSICAL -> src.setPhysical(where);
            case GPU_SHARE -> src.setGpuShare(where);
            case QGPU -> src.setQGPU(where);
        }
        spec.setSource(src);
        spec.setNodeName(node);
        if (podRef != null) {
            ElasticGPUSpec.PodReference pod = new ElasticGPUSpec.PodReference();
            pod.setNamespace(podRef.namespace());
            pod.setName(podRef.name());
            pod.setContainer(podRef.container());
            spec.setPodRef(pod);
        }
        if (claimRef != null) {
            ElasticGPUSpec.ClaimReference claim = new ElasticGPUSpec.ClaimReference();
            claim.setNamespace(claimRef.namespace());
            claim.setName(claimRef.name());
            claim.setUid(claimRef.uid());
            spec.setClaimRef(claim);
        }
        return spec;
    }

    ElasticGPUStatus status() {
        ElasticGPUStatus status = new ElasticGPUStatus();
        status.setPhase(phase);
        return status;
    }

    /**
     * Reads an ElasticGPU back as a value, so that it can be compared with the desired one. A missing status reads
     * as {@code Available}; a spec without a source reads as a physical card -1 (it differs from anything desired).
     */
    public static DesiredGpu from(ElasticGPU gpu) {
        ElasticGPUSpec spec = Objects.requireNonNullElseGet(gpu.getSpec(), ElasticGPUSpec::new);
        ElasticGPUSource src = spec.getSource();
        Source source = Source.PHYSICAL;
        ElasticGPUSource.Card where = null;
        if (src != null) {
            if (src.getGpuShare() != null) {
                source = Source.GPU_SHARE;
                where = src.getGpuShare();
            } else if (src.getQGPU() != null) {
                source = Source.QGPU;
                where = src.getQGPU();
            } else {
                where = src.getPhysical();
            }
        }
        Map<String, String> capacity = new TreeMap<>();
        if (spec.getCapacity() != null) {
            spec.getCapacity().forEach((k, v) -> capacity.put(k, v == null ? "" : v.toString()));
        }
        Map<String, String> labels = gpu.getMetadata().getLabels();
        PodRef podRef = spec.getPodRef() == null
                ? null
                : new PodRef(
                        spec.getPodRef().getNamespace(),
                        spec.getPodRef().getName(),
                        spec.getPodRef().getContainer());
        ClaimRef claimRef = spec.getClaimRef() == null
                ? null
                : new ClaimRef(
                        spec.getClaimRef().getNamespace(),
                        spec.getClaimRef().getName(),
                        spec.getClaimRef().getUid());
        Phase phase = gpu.getStatus() == null || gpu.getStatus().getPhase() == null
                ? Phase.Available
                : gpu.getStatus().getPhase();
        return new DesiredGpu(
                gpu.getMetadata().getName(),
                labels == null ? null : labels.get(ManagedLabels.POD_UID),
                Objects.requireNonNullElse(spec.getNodeName(), ""),
                where == null || where.getIndex() == null ? -1 : where.getIndex(),
                where == null ? null : where.getUuid(),
                source,
                capacity,
                podRef,
                claimRef,
                phase);
    }
}
