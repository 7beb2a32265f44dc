package io.elasticgpu.node.isolation;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-card layout: one legacy MPS control daemon per card (per set of cards, for a share on several), serving every
 * share of that card from one server, so that shares compute side by side instead of taking turns. Legacy MPS sets
 * limits per server, not per client; so each share's limits go into its containers' environment
 * ({@link MpsShare#clientEnvironment}), which MPS applies to each client process and which a pod can change: here a
 * share is a limit the pod keeps, not one it cannot raise. The daemon itself runs with no limit. Pods of different
 * user ids on one card take turns on it (a legacy server serves one user id at a time). Thread-safe.
 *
 * <p>The shares it holds are recorded under {@code <root>/per-card-shares/}, apart from the daemons' directories, so
 * that a restarted agent knows which card daemons are still needed.
 */
final class CardDaemons implements ShareServers {

    private static final Logger LOG = LoggerFactory.getLogger(CardDaemons.class);

    private final MpsDaemons daemons;
    private final Path records;
    private final Map<String, Long> memoryByUuid = new HashMap<>();
    private final Map<String, MpsShare> shares = new LinkedHashMap<>();

    CardDaemons(MpsDaemons daemons, Hardware hardware) {
        this.daemons = daemons;
        this.records = daemons.root().resolve("per-card-shares");
        for (Gpu g : hardware.gpus()) {
            memoryByUuid.put(g.uuid(), g.memoryMib());
        }
        try {
            Files.createDirectories(records);
            try (Stream<Path> files = Files.list(records)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".json"))
                        .sorted()
                        .toList()) {
                    Records.read(f, MpsShare.class)
                            .ifPresentOrElse(
                                    s -> shares.put(s.key(), s),
                                    () -> LOG.warn("per-card layout: {} is not a share's record; left alone", f));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read %s: %s".formatted(records, e.getMessage()), e);
        }
    }

    @Override
    public IsolationConfig.Layout layout() {
        return IsolationConfig.Layout.PER_CARD;
    }

    @Override
    public synchronized MpsAccess hold(MpsShare share) {
        MpsDirs dirs = daemons.ensure(unit(share.cards()));
        write(share);
        shares.put(share.key(), share);
        return MpsAccess.of(dirs.pipe().toString(), null, share.clientEnvironment());
    }

    /**
     * The daemon of a set of cards, as a share with no limit: all of each card's memory, all of its threads, as many
     * processes as MPS serves. Its key names the cards, whatever order a share lists them in.
     */
    MpsShare unit(List<String> cards) {
        List<String> sorted = cards.stream().sorted().toList();
        List<Long> memory = new ArrayList<>();
        for (String uuid : sorted) {
            Long mib = memoryByUuid.get(uuid);
            if (mib == null) {
                throw new MpsException("card %s is not a card of this node".formatted(uuid));
            }
            memory.add(mib);
        }
        return new MpsShare(
                "card-" + Records.hash(String.join(",", sorted)),
                sorted,
                new MpsLimits(memory, 100, MpsLimits.MAX_PROCESSES),
                "",
                "",
                0);
    }

    @Override
    public List<String> check() {
        return daemons.check();
    }

    @Override
    public List<LimitDrift> audit(Map<String, List<Long>> servers) {
        return daemons.audit(servers);
    }

    @Override
    public List<MpsShare> units() {
        return daemons.daemons().stream().map(MpsDaemons.Daemon::share).toList();
    }

    @Override
    public Map<Long, List<Long>> processes(MpsShare unit) {
        return ShareDaemons.processes(daemons, unit);
    }

    @Override
    public void terminate(MpsShare unit, long server, long client) {
        daemons.daemon(unit.key()).ifPresent(d -> daemons.terminate(d, server, client));
    }

    @Override
    public synchronized List<MpsShare> shares() {
        return List.copyOf(shares.values());
    }

    @Override
    public synchronized List<String> retain(Predicate<MpsShare> held) {
        List<String> ended = new ArrayList<>();
        for (MpsShare s : List.copyOf(shares.values())) {
            if (!held.test(s)) {
                forget(s.key());
                ended.add(s.key());
            }
        }
        endUnused();
        return ended;
    }

    @Override
    public synchronized void release(String key) {
        if (shares.containsKey(key)) {
            forget(key);
            endUnused();
        }
    }

    /** Ends the daemons of cards no share holds any more. */
    private void endUnused() {
        Set<String> needed =
                shares.values().stream().map(s -> unit(s.cards()).key()).collect(Collectors.toSet());
        daemons.retain(d -> needed.contains(d.share().key()));
    }

    private void forget(String key) {
        shares.remove(key);
        try {
            Files.deleteIfExists(records.resolve(key + ".json"));
        } catch (IOException e) {
            LOG.warn("per-card layout: cannot remove the record of {}: {}", key, e.getMessage());
        }
    }

    private void write(MpsShare share) {
        Records.write(records.resolve(share.key() + ".json"), share);
    }

    @Override
    public int daemons() {
        return daemons.daemons().size();
    }
}
