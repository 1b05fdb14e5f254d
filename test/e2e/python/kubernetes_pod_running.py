"""Debian's Python Kubernetes client waits for a Pod to run, as its own e2e tests do.

kubernetes-client/python's e2e tests test_pod_apis, test_exit_code and test_portforward_http
create a busybox (or nginx) Pod, poll read_namespaced_pod until it leaves Pending / is Running,
then exec into it or port-forward to it. This does the same up to where fogbank stops: no
container runs, so the exec and port-forward upgrades are refused as a kubelet whose runtime
holds no container refuses them (docs/cluster.md). Prints one JSON line.
Usage: /usr/bin/python3 kubernetes_pod_running.py KUBECONFIG POD_NAME
"""
import json
import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException
from kubernetes.stream import portforward, stream

kubeconfig, name = sys.argv[1:3]
api_client = config.new_client_from_config(config_file=kubeconfig, context='fogbank')
api = client.CoreV1Api(api_client)

# As the upstream tests do: the default ServiceAccount first, then the Pod.
account = api.read_namespaced_service_account(name='default', namespace='default').metadata.name
manifest = {
    'apiVersion': 'v1',
    'kind': 'Pod',
    'metadata': {'name': name},
    'spec': {'containers': [{'image': 'busybox', 'name': 'sleep', 'args': ['/bin/sh', '-c', 'while true;do date;sleep 5; done']}]},
}
created = api.create_namespaced_pod(body=manifest, namespace='default')
phases = [created.status.phase]
# A bound on the wait, so a Pod that never runs ends the script instead of hanging it.
deadline = time.monotonic() + 30
while True:
    pod = api.read_namespaced_pod(name=name, namespace='default')
    if pod.status.phase != phases[-1]:
        phases.append(pod.status.phase)
    if pod.status.phase == 'Running' or time.monotonic() > deadline:
        break
    time.sleep(0.1)

container = pod.status.container_statuses[0] if pod.status.container_statuses else None


def refusal(call):
    """refusal is the ApiException a call raises, as status, reason and body (None when it succeeds)."""
    try:
        call()
    except ApiException as error:
        body = error.body.decode('utf-8') if isinstance(error.body, bytes) else error.body
        return {'status': error.status, 'reason': error.reason, 'body': body}
    return None


result = {
    'account': account,
    'phases': phases,
    'node': pod.spec.node_name,
    'podIP': pod.status.pod_ip,
    'podIPs': [entry.ip for entry in pod.status.pod_i_ps or []],
    'hostIP': pod.status.host_ip,
    'conditions': {condition.type: condition.status for condition in pod.status.conditions or []},
    'container': None if container is None else {
        'name': container.name,
        'image': container.image,
        'ready': container.ready,
        'started': container.started,
        'restartCount': container.restart_count,
        'runningSince': container.state.running is not None and container.state.running.started_at is not None,
    },
    # The upstream tests' next steps: exec over the WebSocket the client's stream() opens, and
    # port-forward over its portforward(); then the same subresources as plain requests, whose
    # refusal carries the kubelet's text.
    'execStream': refusal(lambda: stream(api.connect_get_namespaced_pod_exec, name, 'default',
                                         command=['/bin/sh', '-c', 'for i in $(seq 1 3); do date; done'],
                                         stderr=False, stdin=False, stdout=True, tty=False)),
    'exec': refusal(lambda: api.connect_post_namespaced_pod_exec(name, 'default', command='uptime', stdout=True)),
    'portForwardStream': refusal(lambda: portforward(api.connect_get_namespaced_pod_portforward, name, 'default', ports='80')),
    'portForward': refusal(lambda: api.connect_get_namespaced_pod_portforward(name, 'default', ports=80)),
    'listed': name in [item.metadata.name for item in api.list_pod_for_all_namespaces().items],
}
deleted = api.delete_namespaced_pod(name=name, namespace='default', body={})
result['deleted'] = {'terminating': deleted.metadata.deletion_timestamp is not None, 'grace': deleted.metadata.deletion_grace_period_seconds}
print(json.dumps(result))
