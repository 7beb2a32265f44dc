package io.elasticgpu.core.policy;

import static java.util.Objects.requireNonNull;

import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How much of each GPU model's free capacity the expected workload's pods that name models will want, so that a pod
 * that may go to more models leaves it to them. Of all the GPU the expected workload asks, a share {@code c_t} is
 * asked by typical pods t that accept only the models {@code M_t}. For a request that accepts the models {@code M_r}
 * (any model when it names none), the typical pods narrower than it (whose {@code M_t} it accepts and which accept
 * fewer of the cluster's models) are spread over their models, the narrowest first, each over what its models have
 * left of their share of the cluster's cards once the narrower ones had theirs (in proportion to their cards when
 * none is left): what a model receives is the share of the cluster's free GPU it keeps from the request.
 *
 * <p>Nothing is kept when no typical pod names a model, so on a workload without model names the look-ahead
 * chooses exactly as without this; and a pod that names one model keeps nothing from anyone. Immutable and
 * thread-safe.
 */
public final class ModelReserve {

    /** The typical pods that name the same models: the models, their share of all GPU asked. */
    private record Named(Set<String> models, double share) {}

    private final List<Named> named;

    private ModelReserve(List<Named> named) {
        this.named = List.copyOf(named);
    }

    /** The reserve of {@code workload}: its pods that need cards and name models, the rare ones too. */
    public static ModelReserve of(TypicalWorkload workload) {
        requireNonNull(workload, "workload");
        return new ModelReserve(workload.named().stream()
                .map(n -> new Named(new LinkedHashSet<>(n.models()), n.share()))
                .toList());
    }

    /** Whether any typical pod names models: otherwise every model is open to every request. */
    public boolean active() {
        return !named.isEmpty();
    }

    /**
     * What each model keeps from a request that accepts {@code accepted} (empty: any), as a share of the cluster's
     * free GPU, given each model's capacity in the cluster; models that keep nothing are left out.
     *
     * @param capacity milli-cards of each model in the cluster
     */
    public Map<String, Double> kept(List<String> accepted, Map<String, Long> capacity) {
        double total = capacity.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Double> left = new HashMap<>();
        capacity.forEach((m, c) -> left.put(m, c / total));
        List<Named> narrower = named.stream()
                .filter(t -> narrower(t.models(), accepted, capacity))
                .sorted(Comparator.comparingLong(
                        t -> t.models().stream().filter(capacity::containsKey).count()))
                .toList();
        Map<String, Double> out = new HashMap<>();
        for (Named t : narrower) {
            double room = 0;
            double cards = 0;
            for (String m : t.models()) {
                room += Math.max(0, left.getOrDefault(m, 0.0));
                cards += capacity.getOrDefault(m, 0L);
            }
            if (cards == 0) {
                continue;
            }
            for (String m : t.models()) {
                if (!capacity.containsKey(m)) {
                    continue;
                }
                double part =
                        room > 0 ? t.share() * Math.max(0, left.get(m)) / room : t.share() * capacity.get(m) / cards;
                left.merge(m, -part, Double::sum);
                out.merge(m, part, Double::sum);
            }
        }
        return out;
    }

    /** Whether pods accepting {@code set} can go to fewer of the cluster's models than a request accepting them. */
    private static boolean narrower(Set<String> set, List<String> accepted, Map<String, Long> capacity) {
        if (accepted.isEmpty()) {
            return !set.containsAll(capacity.keySet());
        }
        return accepted.containsAll(set) && !set.containsAll(accepted);
    }
}
