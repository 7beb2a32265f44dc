package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.node.allocation.AllocationException;
import io.elasticgpu.node.allocation.CardTable;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The device ids the agent advertises for each resource, and the card each id belongs to. Ids say their card:
 * a whole card is its uuid, everything else {@code <uuid>::<tag><n>}. Immutable.
 */
public final class DeviceCatalog implements CardTable {

    /** kubelet's gRPC client takes at most 4 MiB per message; a ListAndWatch answer must stay well under it. */
    static final long MAX_LIST_BYTES = 3L * 1024 * 1024;

    private final Hardware hardware;
    private final Map<String, AdvertisedResource> resources = new HashMap<>();
    private final Map<String, Integer> cardByUuid = new HashMap<>();

    public DeviceCatalog(Hardware hardware, List<AdvertisedResource> advertised) {
        this.hardware = hardware;
        advertised.forEach(r -> resources.put(r.name(), r));
        hardware.gpus().forEach(g -> cardByUuid.put(g.uuid(), g.index()));
        for (AdvertisedResource r : advertised) {
            tooLarge(hardware, r).ifPresent(message -> {
                throw new IllegalArgumentException(message);
            });
        }
    }

    /** Why kubelet could not take the device list of {@code r} on this hardware, or empty when it can. */
    public static java.util.Optional<String> tooLarge(Hardware hardware, AdvertisedResource r) {
        long bytes = 0;
        for (Gpu g : hardware.gpus()) {
            bytes += r.devicesOn(g.memoryMib()) * (g.uuid().length() + 24L);
        }
        if (bytes <= MAX_LIST_BYTES) {
            return java.util.Optional.empty();
        }
        long total = hardware.gpus().stream().mapToLong(Gpu::memoryMib).sum();
        long perDevice = hardware.gpus().getFirst().uuid().length() + 24L;
        long block = Long.highestOneBit(Math.max(1, total * perDevice / MAX_LIST_BYTES)) * 2;
        return java.util.Optional.of(("%s: %d MiB of GPU memory in %d MiB blocks makes a device list of about %d MiB;"
                        + " kubelet accepts at most 4 MiB. Use a memory block of %d MiB or more (node agent "
                        + "--memory-block-mib and"
                        + " the extender's memoryBlockMib, which must agree)")
                .formatted(r.name(), total, r.perCard(), bytes >> 20, block));
    }

    public Hardware hardware() {
        return hardware;
    }

    public List<AdvertisedResource> resources() {
        return List.copyOf(resources.values());
    }

    /** Every device id of {@code resource}, card by card. */
    public List<String> ids(AdvertisedResource r) {
        List<String> out = new ArrayList<>();
        for (Gpu g : hardware.gpus()) {
            out.addAll(idsOn(r, g.index()));
        }
        return out;
    }

    /** The device ids of {@code resource} on one card. */
    public List<String> idsOn(AdvertisedResource r, int card) {
        Gpu g = hardware.gpus().get(card);
        if (r.kind() == AdvertisedResource.Kind.WHOLE) {
            return List.of(g.uuid());
        }
        long n = r.devicesOn(g.memoryMib());
        List<String> out = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) {
            out.add(g.uuid() + "::" + r.kind().tag + i);
        }
        return out;
    }

    @Override
    public int size() {
        return hardware.gpus().size();
    }

    @Override
    public String uuid(int card) {
        return hardware.gpus().get(card).uuid();
    }

    @Override
    public long memoryMib(int card) {
        return hardware.gpus().get(card).memoryMib();
    }

    @Override
    public boolean wholeCards(String resource) {
        AdvertisedResource r = resources.get(resource);
        return r != null && r.kind() == AdvertisedResource.Kind.WHOLE;
    }

    @Override
    public int cardOf(String deviceId) {
        int sep = deviceId.indexOf("::");
        Integer card = cardByUuid.get(sep < 0 ? deviceId : deviceId.substring(0, sep));
        if (card == null) {
            throw new AllocationException("device id %s is not one this agent advertises (cards: %s)"
                    .formatted(deviceId, cardByUuid.keySet().stream().sorted().toList()));
        }
        return card;
    }
}
