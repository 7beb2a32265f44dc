/**
 * How every component serves HTTP: routes, bounded bodies, 4xx for callers' mistakes, Prometheus metrics, and TLS
 * certificates with BouncyCastle. It knows no component and no Kubernetes type.
 */
module io.elasticgpu.http {
    requires transitive jdk.httpserver;
    requires transitive io.prometheus.metrics.model;
    requires io.prometheus.metrics.exporter.httpserver;
    requires org.bouncycastle.pkix;
    requires org.bouncycastle.provider;
    requires org.slf4j;

    exports io.elasticgpu.http;
    exports io.elasticgpu.http.tls;
}
