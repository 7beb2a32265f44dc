// Command kubelet-driver runs the kubelet's own device manager (k8s.io/kubernetes/pkg/kubelet/cm/devicemanager) and
// its pod-resources v1 server (pkg/kubelet/apis/podresources), unchanged, so that tests can drive a device plugin
// against the real peer instead of a fake. Tests spawn it and talk JSON lines: one command a line on stdin, one
// answer a line on stdout; logs go to stderr.
//
//	kubelet-driver --plugin-dir DIR --pod-resources-socket PATH [-v N] [--feature-gates A=true,B=false]
//	    [--kubeconfig FILE --node-name NODE --plugins-registry DIR --dra-state-dir DIR]
//
// The device manager listens on DIR/kubelet.sock and keeps its checkpoint in DIR, as kubelet does in
// /var/lib/kubelet/device-plugins. With --kubeconfig, kubelet's DRA manager (pkg/kubelet/cm/dra) runs too: it
// reads claims from that API server as node NODE, keeps its checkpoint in --dra-state-dir (kubelet's root
// directory), and DRA drivers register with it through kubelet's plugin manager watching --plugins-registry
// (/var/lib/kubelet/plugins_registry). When the servers listen the driver prints {"event":"ready"}. Commands:
//
//	{"op":"admit","pod":<v1.Pod>}  kubelet admitting a pod and starting its containers: the pod becomes active,
//	    the topology manager (policy none, kubelet's default) admits it, which calls the device manager's Allocate
//	    for every init container then every app container; with DRA, the DRA manager prepares the pod's claims
//	    (their drivers' NodePrepareResources); then GetDeviceRunContainerOptions for every container, to whose
//	    cdiDevices the DRA manager's GetResources adds the claims' CDI devices.
//	    -> {"ok":true,"containers":{"<name>":{"devices":{"<resource>":["id",..]},"envs":{..},
//	        "mounts":[{"containerPath","hostPath","readOnly"}],"deviceSpecs":[{"containerPath","hostPath",
//	        "permissions"}],"annotations":{..},"cdiDevices":[..]}}}
//	    -> {"ok":false,"reason":"UnexpectedAdmissionError","error":"Allocate failed due to .., which is unexpected"}
//	       when admission fails: the pod is no longer active (kubelet rejects it), so its devices free again.
//	    -> {"ok":false,"reason":"CreateContainerConfigError","container":"<name>","error":".."} when a container
//	       cannot get its device options (a failing PreStartContainer, say): the pod stays active, as in kubelet.
//	    -> {"ok":false,"reason":"FailedPrepareDynamicResources","error":".."} when its claims cannot be prepared
//	       (driver not registered, claim not reserved for the pod, NodePrepareResources failed): it stays active.
//	{"op":"sync","uid":".."}  kubelet retrying SyncPod for an active pod: prepare and container options again,
//	    answered as admit.
//	{"op":"remove","uid":".."}  the pod terminated: with DRA its claims are unprepared (NodeUnprepareResources when
//	    no other pod uses them), then it is gone and its devices free at the next allocation or pod-resources List.
//	    -> {"ok":true}, or {"ok":false,"error":".."} with the pod still active when unprepare failed.
//	{"op":"health","uid":".."}  the health of the active pod's DRA devices as kubelet puts it in the pod's container
//	    statuses, from what the drivers stream (DRAResourceHealth) -> {"ok":true,"health":{"<container>":
//	    [{"name":"claim:<claim>","resources":[{"resourceID":"<CDI device>","health":"Healthy|Unhealthy|Unknown"}]}]}}
//	{"op":"awaitDriver","driver":"D","timeoutMs":T[,"registered":false]}  polls until DRA driver D has registered
//	    and is usable (or, with registered false, until it is no longer registered)
//	    -> {"ok":true}, or {"ok":false,"error":"timeout: DRA driver D: registered is still .."}
//	{"op":"capacity"}  -> {"ok":true,"capacity":{"<resource>":n},"allocatable":{..},"deleted":[..]}, GetCapacity()
//	{"op":"await","resource":"R","allocatable":N,"timeoutMs":T}  polls GetCapacity until R's allocatable is N
//	    -> the capacity answer, or {"ok":false,"error":"timeout: allocatable R is M"}
//	{"op":"restart"}  kubelet restarting: the device manager stops, DIR/kubelet.sock goes, and a new device manager
//	    reads the checkpoint and listens again (cleaning DIR of plugin sockets, as kubelet does); with DRA a new DRA
//	    manager reads its checkpoint, wipes the node's ResourceSlices as kubelet does at startup, and a new plugin
//	    manager registers the drivers whose sockets are in the registry. -> {"ok":true}
//	{"op":"stop"}  stops everything, removes the sockets, answers {"ok":true} and exits 0.
//
// A malformed or unknown command answers {"ok":false,"error":".."}. The driver also exits 0 on stdin EOF and on
// SIGTERM or SIGINT.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	flags := flag.NewFlagSet("kubelet-driver", flag.ContinueOnError)
	pluginDir := flags.String("plugin-dir", "", "directory of the kubelet socket, the plugins' sockets and the checkpoint")
	podResourcesSocket := flags.String("pod-resources-socket", "", "unix socket of the pod-resources server")
	verbosity := flags.Int("v", -1, "kubelet log verbosity on stderr; -1 (default) logs errors only")
	featureGates := flags.String("feature-gates", "", "kubelet feature gates, e.g. ResourceHealthStatus=false")
	kubeconfig := flags.String("kubeconfig", "", "API server for kubelet's DRA manager; DRA is off without it")
	nodeName := flags.String("node-name", "", "the node this kubelet is (with --kubeconfig)")
	registryDir := flags.String("plugins-registry", "", "kubelet's plugin registration directory (with --kubeconfig)")
	draStateDir := flags.String("dra-state-dir", "", "where the DRA manager keeps its checkpoint (with --kubeconfig)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *pluginDir == "" || *podResourcesSocket == "" {
		fmt.Fprintln(os.Stderr, "kubelet-driver: --plugin-dir and --pod-resources-socket are both required")
		return 2
	}
	configureLogging(*verbosity)
	if *featureGates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*featureGates); err != nil {
			fmt.Fprintf(os.Stderr, "kubelet-driver: --feature-gates %q: %v\n", *featureGates, err)
			return 2
		}
	}
	dir, err := filepath.Abs(*pluginDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubelet-driver: --plugin-dir %q: %v\n", *pluginDir, err)
		return 2
	}
	socket, err := filepath.Abs(*podResourcesSocket)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubelet-driver: --pod-resources-socket %q: %v\n", *podResourcesSocket, err)
		return 2
	}
	if filepath.Dir(socket) == dir {
		fmt.Fprintf(os.Stderr, "kubelet-driver: --pod-resources-socket %s must not be in --plugin-dir: the device "+
			"manager removes every socket there when it starts; use a sibling directory\n", socket)
		return 2
	}

	var dra *draConfig
	if *kubeconfig != "" {
		if *nodeName == "" || *registryDir == "" || *draStateDir == "" {
			fmt.Fprintln(os.Stderr, "kubelet-driver: --kubeconfig needs --node-name, --plugins-registry and --dra-state-dir")
			return 2
		}
		if dra, err = newDRAConfig(*kubeconfig, *nodeName, *registryDir, *draStateDir); err != nil {
			fmt.Fprintf(os.Stderr, "kubelet-driver: %v\n", err)
			return 2
		}
	}
	k, err := startKubelet(dir, socket, dra)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubelet-driver: %v\n", err)
		return 1
	}
	defer k.stop()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	commands := readLines(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(map[string]string{"event": "ready"}); err != nil {
		return 1
	}
	for {
		select {
		case <-signals:
			return 0
		case line, open := <-commands:
			if !open {
				return 0
			}
			reply, last := k.handle(line)
			if err := out.Encode(reply); err != nil {
				fmt.Fprintf(os.Stderr, "kubelet-driver: cannot answer on stdout: %v\n", err)
				return 1
			}
			if last {
				return 0
			}
		}
	}
}

// readLines delivers stdin's non-empty lines and closes the channel at EOF.
func readLines(in io.Reader) <-chan []byte {
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		scanner := bufio.NewScanner(in)
		scanner.Buffer(make([]byte, 64*1024), 64*1024*1024)
		for scanner.Scan() {
			if len(scanner.Bytes()) > 0 {
				lines <- append([]byte(nil), scanner.Bytes()...)
			}
		}
		if err := scanner.Err(); err != nil {
			fmt.Fprintf(os.Stderr, "kubelet-driver: reading stdin: %v\n", err)
		}
	}()
	return lines
}

// configureLogging sends kubelet's klog output to stderr at the given verbosity, or only its errors when it is
// negative: the device manager logs every registration at level 0, which is noise in a test run.
func configureLogging(verbosity int) {
	flags := flag.NewFlagSet("klog", flag.PanicOnError)
	klog.InitFlags(flags)
	if verbosity < 0 {
		_ = flags.Set("logtostderr", "false")
		_ = flags.Set("alsologtostderr", "false")
		_ = flags.Set("stderrthreshold", "ERROR")
		klog.SetOutput(io.Discard)
		return
	}
	_ = flags.Set("v", strconv.Itoa(verbosity))
}
