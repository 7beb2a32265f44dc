package io.elasticgpu.node.draplugin;

import io.elasticgpu.node.deviceplugin.UnixSockets;
import io.grpc.BindableService;
import io.grpc.Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Serves the DRA service on {@code <plugin dir>/dra.sock} and the registration service on
 * {@code <registration dir>/<driver>-reg.sock}, where kubelet's plugin watcher finds it. kubelet keeps watching that
 * directory across its own restarts and finds the socket again, so unlike the device plugin there is nothing to
 * re-register; closing removes the registration socket, which makes kubelet drop the driver.
 */
public final class DraPluginServer implements AutoCloseable {

    private final Path registrationSocket;
    private final RegistrationService registration;
    private final Server dra;
    private final Server reg;

    private DraPluginServer(Path registrationSocket, RegistrationService registration, Server dra, Server reg) {
        this.registrationSocket = registrationSocket;
        this.registration = registration;
        this.dra = dra;
        this.reg = reg;
    }

    /**
     * Starts both; the DRA socket first, so that kubelet never registers an endpoint that is not served yet.
     *
     * @param more services on the same endpoint, such as {@link DraHealthService}
     */
    public static DraPluginServer start(
            String driver, Path pluginDir, Path registrationDir, DraPluginService service, BindableService... more) {
        createDirectories(pluginDir);
        createDirectories(registrationDir);
        Path endpoint = pluginDir.resolve("dra.sock");
        BindableService[] all = new BindableService[more.length + 1];
        all[0] = service;
        System.arraycopy(more, 0, all, 1, more.length);
        Server dra = UnixSockets.serve(endpoint, all);
        RegistrationService registration = new RegistrationService(driver, endpoint);
        Path regSocket = registrationSocket(registrationDir, driver);
        Server reg = UnixSockets.serve(regSocket, registration);
        return new DraPluginServer(regSocket, registration, dra, reg);
    }

    public static Path registrationSocket(Path registrationDir, String driver) {
        return registrationDir.resolve(driver + "-reg.sock");
    }

    /** Whether kubelet said it took the registration. */
    public boolean registered() {
        return registration.registered();
    }

    @Override
    public void close() {
        reg.shutdownNow();
        dra.shutdownNow();
        try {
            reg.awaitTermination(5, TimeUnit.SECONDS);
            dra.awaitTermination(5, TimeUnit.SECONDS);
            Files.deleteIfExists(registrationSocket);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot create %s: %s; mount kubelet's plugin directories into the agent"
                            .formatted(dir, e.getMessage()),
                    e);
        }
    }
}
