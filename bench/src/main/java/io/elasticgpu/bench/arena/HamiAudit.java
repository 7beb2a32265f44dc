package io.elasticgpu.bench.arena;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What HAMi's scheduler says it gave, read from its own annotations: each bound pod's {@value #ALLOCATED} (per
 * container, separated by {@code ;}, one {@code uuid,type,MiB,cores%} per card, separated by {@code :}; HAMi's
 * {@code EncodePodSingleDevice}), summed per card and held against the card as its node registered it.
 */
public final class HamiAudit {

    /** The pod annotation HAMi's bind writes for NVIDIA cards. */
    public static final String ALLOCATED = "hami.io/vgpu-devices-allocated";

    /** What HAMi has given on one card, @param memoryMib summed, @param cores percent summed. */
    public record Use(long memoryMib, int cores) {
        Use plus(Use other) {
            return new Use(memoryMib + other.memoryMib, cores + other.cores);
        }
    }

    private HamiAudit() {}

    /** One pod's annotation value as card uuid → what it takes there. */
    public static Map<String, Use> parse(String allocated) {
        Map<String, Use> use = new HashMap<>();
        for (String container : allocated.split(";")) {
            for (String device : container.split(":")) {
                if (device.isBlank()) {
                    continue;
                }
                String[] f = device.split(",");
                if (f.length < 4) {
                    throw new IllegalArgumentException("not HAMi's uuid,type,memory,cores: \"" + device + "\"");
                }
                use.merge(f[0], new Use(Long.parseLong(f[2]), Integer.parseInt(f[3])), Use::plus);
            }
        }
        return use;
    }

    /** What the bound pods hold on each card, by card uuid. */
    public static Map<String, Use> used(List<Pod> pods) {
        Map<String, Use> used = new HashMap<>();
        for (Pod pod : pods) {
            String allocated = annotation(pod);
            if (pod.getSpec().getNodeName() != null && allocated != null) {
                parse(allocated).forEach((card, use) -> used.merge(card, use, Use::plus));
            }
        }
        return used;
    }

    /**
     * Cards whose pods, as HAMi placed them (the cards in its annotation), asked more than the card: each share in
     * milli-cards as {@code askOf} says, a whole card 1,000. Unlike HAMi's own figures this does not depend on what
     * HAMi counted for a pod.
     */
    public static int overAsked(List<Pod> pods, java.util.function.Function<Pod, io.elasticgpu.core.model.Ask> askOf) {
        Map<String, Integer> milli = new HashMap<>();
        for (Pod pod : pods) {
            String allocated = annotation(pod);
            if (pod.getSpec().getNodeName() != null && allocated != null) {
                int share = askOf.apply(pod).milliPerCard();
                parse(allocated).keySet().forEach(card -> milli.merge(card, share, Integer::sum));
            }
        }
        return (int) milli.values().stream()
                .filter(m -> m > io.elasticgpu.core.model.Card.WHOLE)
                .count();
    }

    /** Bound pods that asked HAMi for a card and carry no allocation of it: HAMi lost track of them. */
    public static int unaccounted(List<Pod> pods) {
        return (int) pods.stream()
                .filter(p -> p.getSpec().getNodeName() != null
                        && annotation(p) == null
                        && p.getSpec().getContainers().stream()
                                .anyMatch(c -> c.getResources().getLimits() != null
                                        && c.getResources().getLimits().containsKey("nvidia.com/gpu")))
                .count();
    }

    /** Cards whose pods' shares add up to more than 100 % of its cores or more than its memory, as registered. */
    public static int overCommitted(List<Pod> pods, List<Node> nodes) {
        Map<String, HamiRegistration.Device> cards = new HashMap<>();
        for (Node node : nodes) {
            String register = node.getMetadata().getAnnotations() == null
                    ? null
                    : node.getMetadata().getAnnotations().get(HamiRegistration.REGISTER);
            if (register != null) {
                HamiRegistration.read(register).forEach(d -> cards.put(d.id(), d));
            }
        }
        int over = 0;
        for (var e : used(pods).entrySet()) {
            HamiRegistration.Device card = cards.get(e.getKey());
            if (card == null
                    || e.getValue().cores() > card.devcore()
                    || e.getValue().memoryMib() > card.devmem()) {
                over++;
            }
        }
        return over;
    }

    private static String annotation(Pod pod) {
        return pod.getMetadata().getAnnotations() == null
                ? null
                : pod.getMetadata().getAnnotations().get(ALLOCATED);
    }
}
