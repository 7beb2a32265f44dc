package io.elasticgpu.node.isolation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The per-share layout: a legacy MPS control daemon of its own for each share, its limits set on the daemon's side
 * where nothing in a container can raise them ({@link MpsDaemons}). The share's containers get the daemon's pipe
 * directory and, unless their pod brings a {@code /dev/shm} of its own, the share's size-limited {@code /dev/shm}.
 * Each share has its own MPS server, so the card time-slices between the shares that compute at once.
 */
final class ShareDaemons implements ShareServers {

    private final MpsDaemons daemons;

    ShareDaemons(MpsDaemons daemons) {
        this.daemons = daemons;
    }

    @Override
    public IsolationConfig.Layout layout() {
        return IsolationConfig.Layout.PER_SHARE;
    }

    @Override
    public MpsAccess hold(MpsShare share) {
        MpsDirs dirs = daemons.ensure(share);
        return MpsAccess.of(
                dirs.pipe().toString(), share.shmMib() > 0 ? dirs.shm().toString() : null, Map.of());
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
        return processes(daemons, unit);
    }

    /** The servers of the unit's daemon and the clients of each; none when it has no daemon. */
    static Map<Long, List<Long>> processes(MpsDaemons daemons, MpsShare unit) {
        Map<Long, List<Long>> out = new LinkedHashMap<>();
        daemons.daemon(unit.key()).filter(daemons::alive).ifPresent(d -> {
            for (long server : daemons.servers(d)) {
                out.put(server, daemons.clients(d, server));
            }
        });
        return out;
    }

    @Override
    public void terminate(MpsShare unit, long server, long client) {
        daemons.daemon(unit.key()).ifPresentOrElse(d -> daemons.terminate(d, server, client), () -> {
            throw new MpsException("MPS share %s has no daemon".formatted(unit.key()));
        });
    }

    @Override
    public List<MpsShare> shares() {
        return units();
    }

    @Override
    public List<String> retain(Predicate<MpsShare> held) {
        return daemons.retain(d -> held.test(d.share()));
    }

    @Override
    public void release(String key) {
        daemons.release(key);
    }

    @Override
    public int daemons() {
        return daemons.daemons().size();
    }

    MpsDaemons pool() {
        return daemons;
    }
}
