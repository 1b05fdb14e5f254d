"""Issue 43's flow through Debian's google-api-python-client (python3-googleapi), as a user would.

Run by test/e2e/compute-instance-groups-python.test.ts with /usr/bin/python3:

    compute_instance_groups.py ROOT_URL TOKEN PROJECT

The client is built from the Discovery document fogbank serves (build() with
discoveryServiceUrl) and drives instance templates, an instance from one, zonal and regional
managed instance groups and their rolling update, and global and regional backend services with a
security policy. fogbank's clock is frozen and moved through its admin endpoint
(POST /_fogbank/clock), so each step of a group's update happens when the script says. Prints one
JSON object on stdout: what each step saw.
"""

import json
import socket
import sys
import urllib.request

import google.oauth2.credentials
import httplib2
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

ROOT, TOKEN, PROJECT = sys.argv[1], sys.argv[2], sys.argv[3]
ZONE, REGION = "us-central1-a", "us-central1"


def clock(change):
    """Freezes or moves fogbank's clock (the admin API; the token is fogbank's admin token)."""
    request = urllib.request.Request(
        ROOT + "/_fogbank/clock",
        data=json.dumps(change).encode(),
        headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def last(url):
    return url.rsplit("/", 1)[-1]


def failure(request):
    """Runs a request expected to fail; its status, reason and message."""
    try:
        request.execute()
    except HttpError as error:
        body = json.loads(error.content.decode())["error"]
        return {"status": error.resp.status, "reason": body["errors"][0]["reason"], "message": body["message"]}
    raise AssertionError("the request succeeded")


def main():
    gce = build(
        "compute",
        "v1",
        discoveryServiceUrl=ROOT + "/discovery/v1/apis/{api}/{apiVersion}/rest",
        credentials=google.oauth2.credentials.Credentials(TOKEN),
        cache_discovery=False,
    )
    clock({"freeze": True})
    out = {}

    def done(operation):
        """Lets the Operation's time pass, then waits on it with the scope's wait method, as gcloud does."""
        clock({"advance": "1s"})
        if "zone" in operation:
            waited = gce.zoneOperations().wait(project=PROJECT, zone=last(operation["zone"]), operation=operation["name"]).execute()
        elif "region" in operation:
            waited = gce.regionOperations().wait(project=PROJECT, region=last(operation["region"]), operation=operation["name"]).execute()
        else:
            waited = gce.globalOperations().wait(project=PROJECT, operation=operation["name"]).execute()
        assert waited["status"] == "DONE" and "error" not in waited, waited
        return waited

    def members(groups, **where):
        rows = groups.listManagedInstances(project=PROJECT, instanceGroupManager="mig", **where).execute().get("managedInstances", [])
        return [[last(r["instance"]), r.get("instanceStatus"), r["currentAction"], last(r["version"]["instanceTemplate"])] for r in rows]

    for name, machine in (("t1", "e2-small"), ("t2", "e2-medium")):
        body = {"name": name, "properties": {"machineType": machine, "networkInterfaces": [{"network": "global/networks/default"}]}}
        done(gce.instanceTemplates().insert(project=PROJECT, body=body).execute())

    # An instance from a template: PROVISIONING, STAGING while its Operation runs, RUNNING once it is done.
    inserted = gce.instances().insert(project=PROJECT, zone=ZONE, body={"name": "vm1"}, sourceInstanceTemplate="global/instanceTemplates/t1").execute()
    seen = [gce.instances().get(project=PROJECT, zone=ZONE, instance="vm1").execute()["status"]]
    clock({"advance": "150ms"})
    seen.append(gce.instances().get(project=PROJECT, zone=ZONE, instance="vm1").execute()["status"])
    done(inserted)
    vm = gce.instances().get(project=PROJECT, zone=ZONE, instance="vm1").execute()
    seen.append(vm["status"])
    out["instance"] = {"statuses": seen, "machineType": last(vm["machineType"]), "listed": [i["name"] for i in gce.instances().list(project=PROJECT, zone=ZONE).execute()["items"]]}

    # A zonal group of three from t1, coming up on the clock.
    zonal = gce.instanceGroupManagers()
    body = {"name": "mig", "baseInstanceName": "web", "instanceTemplate": "global/instanceTemplates/t1", "targetSize": 3}
    out["insertType"] = done(zonal.insert(project=PROJECT, zone=ZONE, body=body).execute())["operationType"]
    coming = [members(zonal, zone=ZONE)]
    for step in ("5s", "15s", "10s"):
        clock({"advance": step})
        coming.append(members(zonal, zone=ZONE))
    out["comingUp"] = [[row[1:3] for row in rows] for rows in coming]
    group = zonal.get(project=PROJECT, zone=ZONE, instanceGroupManager="mig").execute()
    out["group"] = {"status": group["status"], "updatePolicy": group["updatePolicy"], "targetSize": group["targetSize"]}
    out["t1InUse"] = failure(gce.instanceTemplates().delete(project=PROJECT, instanceTemplate="t1"))

    # The rolling update: versions t2 and a PROACTIVE policy, one surge and none unavailable.
    before = [row[0] for row in members(zonal, zone=ZONE)]
    update = {
        "versions": [{"instanceTemplate": "projects/%s/global/instanceTemplates/t2" % PROJECT}],
        "updatePolicy": {"type": "PROACTIVE", "maxSurge": {"fixed": 1}, "maxUnavailable": {"fixed": 0}},
    }
    done(zonal.patch(project=PROJECT, zone=ZONE, instanceGroupManager="mig", body=update).execute())
    most_live, least_serving, waves = 0, 99, []
    for _ in range(40):
        rows = members(zonal, zone=ZONE)
        waves.append(sorted(row[2] for row in rows if row[2] != "NONE"))
        most_live = max(most_live, len([r for r in rows if r[2] != "DELETING"]))
        least_serving = min(least_serving, len([r for r in rows if r[1] == "RUNNING" and r[2] in ("NONE", "VERIFYING")]))
        state = zonal.get(project=PROJECT, zone=ZONE, instanceGroupManager="mig").execute()["status"]
        if state["isStable"]:
            break
        clock({"advance": "5s"})
    after = members(zonal, zone=ZONE)
    out["update"] = {
        "mostLive": most_live,
        "leastServing": least_serving,
        "firstWave": waves[0],
        "after": [row[1:] for row in after],
        "renamed": all(row[0] not in before for row in after),
        "status": state,
    }
    # setInstanceTemplate with the group's own template changes nothing; t1 is free now.
    done(zonal.setInstanceTemplate(project=PROJECT, zone=ZONE, instanceGroupManager="mig", body={"instanceTemplate": "global/instanceTemplates/t2"}).execute())
    done(gce.instanceTemplates().delete(project=PROJECT, instanceTemplate="t1").execute())
    out["t2InUse"] = failure(gce.instanceTemplates().delete(project=PROJECT, instanceTemplate="t2"))
    resized = zonal.resize(project=PROJECT, zone=ZONE, instanceGroupManager="mig", size=1).execute()
    done(resized)
    out["resized"] = [row[2] for row in members(zonal, zone=ZONE)]
    out["aggregated"] = sorted(
        scope for scope, value in zonal.aggregatedList(project=PROJECT).execute()["items"].items() if value.get("instanceGroupManagers")
    )
    done(zonal.delete(project=PROJECT, zone=ZONE, instanceGroupManager="mig").execute())

    # A regional group spreads over the region's zones; its defaults are the number of zones.
    regional = gce.regionInstanceGroupManagers()
    body = {"name": "mig", "baseInstanceName": "r", "instanceTemplate": "global/instanceTemplates/t2", "targetSize": 3}
    done(regional.insert(project=PROJECT, region=REGION, body=body).execute())
    clock({"advance": "30s"})
    rows = regional.listManagedInstances(project=PROJECT, region=REGION, instanceGroupManager="mig").execute()["managedInstances"]
    policy = regional.get(project=PROJECT, region=REGION, instanceGroupManager="mig").execute()["updatePolicy"]
    out["regional"] = {
        "zones": sorted(r["instance"].split("/zones/")[1].split("/")[0] for r in rows),
        "actions": [r["currentAction"] for r in rows],
        "maxSurge": policy["maxSurge"],
        "maxUnavailable": policy["maxUnavailable"],
        "listed": [g["name"] for g in regional.list(project=PROJECT, region=REGION).execute()["items"]],
    }
    instance_group = gce.regionInstanceGroups().get(project=PROJECT, region=REGION, instanceGroup="mig").execute()
    listed = gce.regionInstanceGroups().listInstances(project=PROJECT, region=REGION, instanceGroup="mig", body={"instanceState": "ALL"}).execute()
    out["regional"]["instanceGroup"] = {
        "size": instance_group["size"],
        "region": last(instance_group["region"]),
        "instances": sorted(last(i["instance"]) for i in listed["items"]) == sorted(last(r["instance"]) for r in rows),
    }
    # applyUpdatesToInstances with minimalAction REPLACE recreates every instance at once, under its own name.
    body = {"allInstances": True, "minimalAction": "REPLACE"}
    done(regional.applyUpdatesToInstances(project=PROJECT, region=REGION, instanceGroupManager="mig", body=body).execute())
    again = regional.listManagedInstances(project=PROJECT, region=REGION, instanceGroupManager="mig").execute()["managedInstances"]
    out["regional"]["applied"] = [[r["currentAction"], r["instanceStatus"], r["instance"] in [x["instance"] for x in rows]] for r in again]
    done(regional.delete(project=PROJECT, region=REGION, instanceGroupManager="mig").execute())
    done(gce.instanceTemplates().delete(project=PROJECT, instanceTemplate="t2").execute())
    out["instancesLeft"] = [i["name"] for i in gce.instances().aggregatedList(project=PROJECT).execute()["items"].get("zones/" + ZONE, {}).get("instances", [])]

    # Backend services, global and regional, with a security policy each.
    done(gce.securityPolicies().insert(project=PROJECT, body={"name": "armor", "type": "CLOUD_ARMOR"}).execute())
    done(gce.backendServices().insert(project=PROJECT, body={"name": "web", "protocol": "HTTP", "loadBalancingScheme": "EXTERNAL_MANAGED"}).execute())
    reference = {"securityPolicy": "projects/%s/global/securityPolicies/armor" % PROJECT}
    done(gce.backendServices().setSecurityPolicy(project=PROJECT, backendService="web", body=reference).execute())
    service = gce.backendServices().get(project=PROJECT, backendService="web").execute()
    out["backendService"] = {"securityPolicy": service.get("securityPolicy"), "listed": [s["name"] for s in gce.backendServices().list(project=PROJECT).execute()["items"]]}
    out["armorInUse"] = failure(gce.securityPolicies().delete(project=PROJECT, securityPolicy="armor"))
    done(gce.regionSecurityPolicies().insert(project=PROJECT, region=REGION, body={"name": "regional-armor", "type": "CLOUD_ARMOR"}).execute())
    body = {"name": "internal", "protocol": "HTTP", "loadBalancingScheme": "INTERNAL_MANAGED"}
    done(gce.regionBackendServices().insert(project=PROJECT, region=REGION, body=body).execute())
    reference = {"securityPolicy": "projects/%s/regions/%s/securityPolicies/regional-armor" % (PROJECT, REGION)}
    done(gce.regionBackendServices().setSecurityPolicy(project=PROJECT, region=REGION, backendService="internal", body=reference).execute())
    service = gce.regionBackendServices().get(project=PROJECT, region=REGION, backendService="internal").execute()
    out["regionBackendService"] = {"securityPolicy": service.get("securityPolicy"), "region": last(service["region"])}
    out["regionalArmorInUse"] = failure(gce.regionSecurityPolicies().delete(project=PROJECT, region=REGION, securityPolicy="regional-armor"))
    return out


if __name__ == "__main__":
    httplib2.RETRIES = 1
    socket.setdefaulttimeout(30)
    json.dump(main(), sys.stdout)
