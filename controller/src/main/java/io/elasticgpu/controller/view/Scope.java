package io.elasticgpu.controller.view;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What a view shows. {@code node}: only that node (its cards, the pods on it). {@code namespace}: only holders,
 * pending pods and problems of that namespace, while every usage figure still counts all namespaces. Null means all.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Scope(String node, String namespace) {

    public static final Scope ALL = new Scope(null, null);

    public Scope {
        if (node != null && node.isBlank()) {
            throw new IllegalArgumentException("scope: node must be a node name or absent, was \"%s\"".formatted(node));
        }
        if (namespace != null && namespace.isBlank()) {
            throw new IllegalArgumentException(
                    "scope: namespace must be a namespace name or absent, was \"%s\"".formatted(namespace));
        }
    }

    boolean showsNode(String name) {
        return node == null || node.equals(name);
    }

    boolean showsNamespace(String ns) {
        return namespace == null || namespace.equals(ns);
    }
}
