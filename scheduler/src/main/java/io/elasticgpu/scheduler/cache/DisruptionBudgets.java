package io.elasticgpu.scheduler.cache;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The PodDisruptionBudgets as last seen, and how many pods of a set of victims would be evicted against one, counted
 * exactly as kube-scheduler's default preemption counts them ({@code filterPodsWithPDBViolation} in
 * {@code pkg/scheduler/framework/plugins/defaultpreemption}, v1.36): the victims are taken in the order given; each
 * budget of the pod's namespace whose selector matches the pod's labels, and which does not list the pod among its
 * {@code status.disruptedPods}, loses one of its {@code status.disruptionsAllowed}; a pod that takes any budget
 * below zero violates it. A pod without labels, and a budget whose selector is empty or cannot be read, match nothing.
 * Immutable.
 */
public final class DisruptionBudgets {

    public static final DisruptionBudgets NONE = new DisruptionBudgets(Map.of());

    private final Map<String, PodDisruptionBudget> byKey;

    private DisruptionBudgets(Map<String, PodDisruptionBudget> byKey) {
        this.byKey = byKey;
    }

    /** These budgets, each by namespace/name. */
    public static DisruptionBudgets of(List<PodDisruptionBudget> budgets) {
        Map<String, PodDisruptionBudget> out = new HashMap<>();
        for (PodDisruptionBudget b : budgets) {
            out.put(HostPod.key(b.getMetadata().getNamespace(), b.getMetadata().getName()), b);
        }
        return new DisruptionBudgets(Map.copyOf(out));
    }

    public boolean isEmpty() {
        return byKey.isEmpty();
    }

    /**
     * How many of {@code victims}, evicted in this order (kube-scheduler's: the most important first), would each
     * take a budget below zero.
     */
    public int violations(List<Pod> victims) {
        if (byKey.isEmpty()) {
            return 0;
        }
        Map<String, Integer> allowed = new HashMap<>();
        int violating = 0;
        for (Pod pod : victims) {
            if (violates(pod, allowed)) {
                violating++;
            }
        }
        return violating;
    }

    /** Whether evicting {@code pod} alone would take a budget below zero. */
    public boolean protects(Pod pod) {
        return violations(List.of(pod)) > 0;
    }

    private boolean violates(Pod pod, Map<String, Integer> allowed) {
        Map<String, String> labels =
                pod.getMetadata() == null ? null : pod.getMetadata().getLabels();
        if (labels == null || labels.isEmpty()) {
            return false;
        }
        boolean violating = false;
        for (Map.Entry<String, PodDisruptionBudget> e : byKey.entrySet()) {
            PodDisruptionBudget b = e.getValue();
            if (!b.getMetadata().getNamespace().equals(pod.getMetadata().getNamespace())
                    || b.getSpec() == null
                    || !matches(b.getSpec().getSelector(), labels)) {
                continue;
            }
            Map<String, String> disrupted =
                    b.getStatus() == null ? null : b.getStatus().getDisruptedPods();
            if (disrupted != null && disrupted.containsKey(pod.getMetadata().getName())) {
                continue;
            }
            int left = allowed.merge(e.getKey(), start(b) - 1, (a, one) -> a - 1);
            if (left < 0) {
                violating = true;
            }
        }
        return violating;
    }

    private static int start(PodDisruptionBudget b) {
        Integer n = b.getStatus() == null ? null : b.getStatus().getDisruptionsAllowed();
        return n == null ? 0 : n;
    }

    /**
     * Whether {@code selector} selects {@code labels}, as {@code metav1.LabelSelectorAsSelector} reads it; an empty or
     * unreadable selector selects nothing (a budget's rule).
     */
    static boolean matches(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        Map<String, String> exact = selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
        List<LabelSelectorRequirement> expressions =
                selector.getMatchExpressions() == null ? List.of() : selector.getMatchExpressions();
        if (exact.isEmpty() && expressions.isEmpty()) {
            return false;
        }
        for (Map.Entry<String, String> e : exact.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        for (LabelSelectorRequirement r : expressions) {
            List<String> values = r.getValues() == null ? List.of() : r.getValues();
            String value = labels.get(r.getKey());
            boolean ok = switch (r.getOperator() == null ? "" : r.getOperator()) {
                case "In" -> !values.isEmpty() && value != null && values.contains(value);
                case "NotIn" -> !values.isEmpty() && (value == null || !values.contains(value));
                case "Exists" -> values.isEmpty() && labels.containsKey(r.getKey());
                case "DoesNotExist" -> values.isEmpty() && !labels.containsKey(r.getKey());
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
