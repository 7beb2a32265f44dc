package io.elasticgpu.node.deviceplugin;

import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every plugin served and registered, whatever kubelet does (seed 002): serves each plugin on its socket in
 * the device-plugins directory; registers it on {@code kubelet.sock}; re-registers all when {@code kubelet.sock} is
 * re-created (kubelet restarted, which also deletes plugin sockets); serves a plugin again when its own socket is
 * deleted; retries with exponential backoff (up to {@link #MAX_BACKOFF}) while kubelet is absent or refuses; and on
 * {@link #close} ends the streams, stops the servers and removes the sockets. Directory events wake it at once; a
 * one-second tick covers events the file system does not report.
 */
public final class PluginSupervisor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PluginSupervisor.class);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    private static final Duration TICK = Duration.ofSeconds(1);

    private final Path dir;
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final Thread loop;
    private volatile boolean closed;
    private Object kubeletIdentity;

    /** One plugin, its server and its registration state; written by the loop thread only (metrics read two). */
    private static final class Endpoint {
        final DevicePlugin service;
        final Path socket;
        Server server;
        volatile Object registeredWith;
        volatile long registrations;
        long nextAttemptNanos;
        Duration backoff = Duration.ofMillis(500);

        Endpoint(DevicePlugin service, Path socket) {
            this.service = service;
            this.socket = socket;
        }
    }

    public PluginSupervisor(Path devicePluginDir, List<? extends DevicePlugin> services) {
        this.dir = devicePluginDir;
        for (DevicePlugin s : services) {
            endpoints.add(new Endpoint(s, dir.resolve(s.socketName())));
        }
        endpoints.forEach(this::serve);
        this.loop = Thread.ofVirtual().name("egpu-plugin-supervisor").start(this::run);
    }

    /** Whether every plugin is registered with the kubelet whose socket is there now. */
    public boolean registered() {
        Object now = identity(dir.resolve("kubelet.sock"));
        return now != null && endpoints.stream().allMatch(e -> Objects.equals(e.registeredWith, now));
    }

    /**
     * One plugin's registration, for metrics.
     *
     * @param resource      the resource the plugin serves
     * @param registered    whether it is registered with the kubelet whose socket is there now
     * @param registrations how many times kubelet accepted its registration (more than once: kubelet restarted or
     *                      the plugin's socket was deleted)
     */
    public record Registration(String resource, boolean registered, long registrations) {}

    public List<Registration> registrations() {
        Object now = identity(dir.resolve("kubelet.sock"));
        return endpoints.stream()
                .map(e -> new Registration(
                        e.service.resourceName(), now != null && now.equals(e.registeredWith), e.registrations))
                .toList();
    }

    private void run() {
        try (WatchService watch = dir.getFileSystem().newWatchService()) {
            dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
            while (!closed) {
                check();
                var key = watch.poll(TICK.toMillis(), TimeUnit.MILLISECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.error("cannot watch {}: {}; plugins will not re-register after a kubelet restart", dir, e.getMessage());
        }
    }

    private synchronized void check() {
        if (closed) {
            return;
        }
        Object kubelet = identity(dir.resolve("kubelet.sock"));
        if (kubelet != null && !kubelet.equals(kubeletIdentity)) {
            if (kubeletIdentity != null) {
                LOG.info("kubelet.sock was re-created; registering every plugin again");
            }
            kubeletIdentity = kubelet;
        }
        for (Endpoint e : endpoints) {
            if (!Files.exists(e.socket)) {
                LOG.info("socket {} is gone; serving {} again", e.socket, e.service.resourceName());
                e.service.closeStreams();
                e.server.shutdownNow();
                serve(e);
                e.registeredWith = null;
            }
            if (kubelet != null && !kubelet.equals(e.registeredWith) && System.nanoTime() >= e.nextAttemptNanos) {
                register(e, kubelet);
            }
        }
    }

    private void register(Endpoint e, Object kubelet) {
        try {
            KubeletRegistration.register(
                    dir.resolve("kubelet.sock"), e.socket.getFileName().toString(), e.service.resourceName());
            e.registeredWith = kubelet;
            e.registrations++; // only the loop thread writes it
            e.backoff = Duration.ofMillis(500);
            LOG.info("registered {} on {}", e.service.resourceName(), e.socket);
        } catch (RuntimeException ex) {
            e.nextAttemptNanos = System.nanoTime() + e.backoff.toNanos();
            LOG.warn(
                    "registering {} with kubelet failed ({}); retrying in {} ms",
                    e.service.resourceName(),
                    ex.getMessage(),
                    e.backoff.toMillis());
            e.backoff = e.backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : e.backoff.multipliedBy(2);
        }
    }

    private void serve(Endpoint e) {
        e.server = UnixSockets.serve(e.socket, e.service);
    }

    private static Object identity(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return java.util.Arrays.asList(a.fileKey(), a.lastModifiedTime()); // an inode number may be reused at once
        } catch (IOException e) {
            return null;
        }
    }

    /** Sends the device lists again (after a health change). */
    public void healthChanged() {
        endpoints.forEach(e -> e.service.healthChanged());
    }

    @Override
    public synchronized void close() {
        closed = true;
        loop.interrupt();
        for (Endpoint e : endpoints) {
            e.service.closeStreams();
            e.server.shutdownNow();
            try {
                Files.deleteIfExists(e.socket);
            } catch (IOException ex) {
                LOG.warn("cannot remove {}: {}", e.socket, ex.getMessage());
            }
        }
    }
}
