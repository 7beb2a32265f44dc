package io.elasticgpu.localcluster.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/** A kubeconfig with one cluster, one user authenticated by a client certificate, and one current context. */
final class Kubeconfig {

    private Kubeconfig() {}

    static Path write(Path file, String server, String caPem, String certificatePem, String keyPem, String user) {
        String yaml = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: elastic-gpu-e2e
                  cluster:
                    server: %s
                    certificate-authority-data: %s
                users:
                - name: %s
                  user:
                    client-certificate-data: %s
                    client-key-data: %s
                contexts:
                - name: elastic-gpu-e2e
                  context:
                    cluster: elastic-gpu-e2e
                    user: %s
                current-context: elastic-gpu-e2e
                """.formatted(server, base64(caPem), user, base64(certificatePem), base64(keyPem), user);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, yaml);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static String base64(String pem) {
        return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII));
    }
}
