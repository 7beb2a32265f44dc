package io.elasticgpu.node.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The API's pods as {@link NodePod}s, each version converted once: every {@code Allocate} looks at every pod of the
 * node, and converting one parses its allocation annotation. A pod is converted again when its
 * {@code resourceVersion} changes (the API server changes it with every write); a pod without one, every time.
 * Thread-safe.
 */
final class ConvertedPods {

    private record Converted(String resourceVersion, Optional<NodePod> pod) {}

    private final Function<Pod, Optional<NodePod>> convert;
    private final Map<String, Converted> byUid = new ConcurrentHashMap<>();

    /** @param convert what a pod is to allocation, or empty when it holds or asks nothing we hand out */
    ConvertedPods(Function<Pod, Optional<NodePod>> convert) {
        this.convert = convert;
    }

    List<NodePod> of(List<Pod> pods) {
        List<NodePod> out = new ArrayList<>(pods.size());
        for (Pod p : pods) {
            of(p).ifPresent(out::add);
        }
        if (byUid.size() > pods.size()) { // pods were deleted: forget them
            java.util.Set<String> live = new java.util.HashSet<>();
            pods.forEach(p -> live.add(p.getMetadata().getUid()));
            byUid.keySet().retainAll(live);
        }
        return out;
    }

    private Optional<NodePod> of(Pod p) {
        String uid = p.getMetadata().getUid();
        String version = p.getMetadata().getResourceVersion();
        if (uid == null || version == null) {
            return convert.apply(p);
        }
        Converted known = byUid.get(uid);
        if (known != null && known.resourceVersion().equals(version)) {
            return known.pod();
        }
        Optional<NodePod> pod = convert.apply(p);
        byUid.put(uid, new Converted(version, pod));
        return pod;
    }

    /** How many pod versions are remembered (for tests). */
    int remembered() {
        return byUid.size();
    }
}
