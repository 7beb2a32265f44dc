package io.elasticgpu.localcluster.realnode;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The address a real node registers with and kubelet listens on: kubelet refuses a loopback node IP, so it is the
 * IPv4 address of the interface of the machine's default route, or else of its first other interface that is up.
 * kubelet's port there accepts only clients with a certificate of the control plane's CA.
 */
final class NodeAddress {

    private NodeAddress() {}

    static String primaryIpv4() {
        try {
            List<NetworkInterface> candidates = NetworkInterface.networkInterfaces()
                    .filter(NodeAddress::usable)
                    .filter(i -> ipv4(i).isPresent())
                    .sorted(Comparator.comparing(NetworkInterface::getIndex))
                    .toList();
            Optional<String> route = defaultRouteInterface();
            return candidates.stream()
                    .filter(i -> route.isPresent() && i.getName().equals(route.get()))
                    .findFirst()
                    .or(() -> candidates.stream().findFirst())
                    .flatMap(NodeAddress::ipv4)
                    .orElseThrow(() -> new IllegalStateException("this machine has no IPv4 address besides loopback for"
                            + " the real node (kubelet refuses a loopback node IP); bring up an interface with one"));
        } catch (SocketException e) {
            throw new IllegalStateException("cannot list the network interfaces: " + e.getMessage(), e);
        }
    }

    private static boolean usable(NetworkInterface i) {
        try {
            return i.isUp()
                    && !i.isLoopback()
                    && !i.isVirtual()
                    && !i.getName().equals(NodeConfigFiles.BRIDGE)
                    && !i.getName().startsWith("veth");
        } catch (SocketException e) {
            return false;
        }
    }

    private static Optional<String> ipv4(NetworkInterface i) {
        return i.inetAddresses()
                .filter(a -> a instanceof Inet4Address)
                .map(a -> a.getHostAddress())
                .findFirst();
    }

    /** The interface of the default route ({@code /proc/net/route}: destination 00000000). */
    private static Optional<String> defaultRouteInterface() {
        try {
            return Files.readAllLines(Path.of("/proc/net/route")).stream()
                    .skip(1)
                    .map(l -> l.trim().split("\\s+"))
                    .filter(f -> f.length > 2 && f[1].equals("00000000"))
                    .map(f -> f[0])
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
