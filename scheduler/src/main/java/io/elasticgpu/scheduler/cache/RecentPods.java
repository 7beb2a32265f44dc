package io.elasticgpu.scheduler.cache;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The last pods kube-scheduler sent this replica, by uid. kube-scheduler sends a pod's filter and bind calls moments
 * after creating it, often before the informer shows it; what the extender needs of the pod then (its asks, for the
 * bind and for the look-alike gate) comes from here. Bounded: only pods still being scheduled are ever looked up.
 */
final class RecentPods {

    private final Map<String, Pod> pods;

    RecentPods(int capacity) {
        this.pods = new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Pod> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized void add(Pod pod) {
        if (pod != null && pod.getMetadata() != null && pod.getMetadata().getUid() != null) {
            pods.put(pod.getMetadata().getUid(), pod);
        }
    }

    synchronized Optional<Pod> get(String uid) {
        return Optional.ofNullable(pods.get(uid));
    }
}
