"""Drives fogbank with Debian's google-api-python-client (python3-googleapi), as a user would.

Run by test/e2e/python-googleapi.test.ts with /usr/bin/python3:

    googleapi_client.py ROOT_URL SCENARIO TOKEN [ARGS...]

ROOT_URL is fogbank's address (http://127.0.0.1:PORT). Every client is built from the Discovery
document fogbank serves there (build() with discoveryServiceUrl), with the access token as its
credentials; nothing else is fetched. Each scenario prints one JSON object on stdout.
"""

import base64
import io
import json
import socket
import sys

import google.oauth2.credentials
import httplib2
from googleapiclient.discovery import build
from googleapiclient.http import MediaFileUpload, MediaIoBaseUpload

ROOT, SCENARIO, TOKEN, ARGS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
DISCOVERY = ROOT + "/discovery/v1/apis/{api}/{apiVersion}/rest"


def client(api, version, token=TOKEN, discovery=DISCOVERY):
    # The discovery fetch takes no credentials (Google's needs none); calls carry the token.
    credentials = google.oauth2.credentials.Credentials(token)
    return build(api, version, discoveryServiceUrl=discovery, credentials=credentials, cache_discovery=False)


def message(subject, to):
    return (
        "From: ann@example.com\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@example.com>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSent by python3-googleapi.\r\n"
        % (to, subject, subject.replace(" ", "-"))
    ).encode()


def gmail():
    """Sends by raw, by media (simple and resumable), and through a draft; then reads the recipient's inbox."""
    recipient_token = ARGS[0]
    mail = client("gmail", "v1")
    users = mail.users()
    raw = base64.urlsafe_b64encode(message("raw send", "bob@example.com")).decode()
    sent = [users.messages().send(userId="me", body={"raw": raw}).execute()]
    simple = MediaIoBaseUpload(io.BytesIO(message("media send", "bob@example.com")), mimetype="message/rfc822", resumable=False)
    sent.append(users.messages().send(userId="me", media_body=simple).execute())
    resumable = MediaIoBaseUpload(io.BytesIO(message("resumable send", "bob@example.com")), mimetype="message/rfc822", chunksize=256 * 1024, resumable=True)
    request = users.messages().send(userId="me", body={}, media_body=resumable)
    response = None
    while response is None:
        _, response = request.next_chunk()
    sent.append(response)
    draft_raw = base64.urlsafe_b64encode(message("draft send", "bob@example.com")).decode()
    draft = users.drafts().create(userId="me", body={"message": {"raw": draft_raw}}).execute()
    listed = users.drafts().list(userId="me").execute()
    from_draft = users.drafts().send(userId="me", body={"id": draft["id"]}).execute()
    after = users.drafts().list(userId="me").execute()

    inbox = client("gmail", "v1", token=recipient_token).users()
    page = inbox.messages().list(userId="me", labelIds=["INBOX"]).execute()
    subjects = []
    for entry in page.get("messages", []):
        got = inbox.messages().get(userId="me", id=entry["id"], format="metadata", metadataHeaders=["Subject"]).execute()
        subjects += [h["value"] for h in got["payload"]["headers"] if h["name"] == "Subject"]
    return {
        "sentLabels": [m.get("labelIds") for m in sent + [from_draft]],
        "draftMessageId": draft["message"]["id"],
        "draftsListed": [d["id"] for d in listed.get("drafts", [])],
        "draftId": draft["id"],
        "draftsAfterSend": len(after.get("drafts", [])),
        "recipientSubjects": sorted(subjects),
    }


def publisher():
    """Uploads each bundle file given (simple upload, then resumable) as internal app sharing artifacts."""
    package = ARGS[0]
    play = client("androidpublisher", "v3")
    out = []
    for path in ARGS[1:]:
        for resumable in (False, True):
            print("uploading %s (resumable: %s)" % (path, resumable), file=sys.stderr, flush=True)
            media = MediaFileUpload(path, mimetype="application/octet-stream", resumable=resumable)
            artifact = play.internalappsharingartifacts().uploadbundle(packageName=package, media_body=media).execute()
            out.append({"file": path, "resumable": resumable, "artifact": artifact})
    return {"uploads": out}


def compute():
    """Inserts an instance template and waits for its Operation, then reads the template back."""
    project, name = ARGS
    gce = client("compute", "v1")
    body = {"name": name, "properties": {"machineType": "e2-small", "disks": [{"boot": True, "initializeParams": {"sourceImage": "projects/debian-cloud/global/images/family/debian-12"}}], "networkInterfaces": [{"network": "global/networks/default"}]}}
    operation = gce.instanceTemplates().insert(project=project, body=body).execute()
    waited = operation
    while waited["status"] != "DONE":
        waited = gce.globalOperations().wait(project=project, operation=operation["name"]).execute()
    template = gce.instanceTemplates().get(project=project, instanceTemplate=name).execute()
    listed = gce.instanceTemplates().list(project=project).execute()
    return {
        "operationType": operation["operationType"],
        "firstStatus": operation["status"],
        "waited": {k: waited.get(k) for k in ("kind", "status", "operationType", "targetLink", "error")},
        "template": {k: template.get(k) for k in ("kind", "name", "selfLink")},
        "listed": [t["name"] for t in listed.get("items", [])],
    }


def discovery_v2():
    """build() through the `$discovery` address (what the client tries as Discovery v2), for an API the version names."""
    play = client("androidpublisher", "v3", discovery=ROOT + "/$discovery/rest?version={apiVersion}")
    return {"methods": sorted(m for m in dir(play.internalappsharingartifacts()) if m.startswith("upload"))}


def mail_alias():
    """build() by the spec's name: the document's paths say /mail/v1, and the calls go there."""
    mail = client("mail", "v1")
    raw = base64.urlsafe_b64encode(message("alias send", "bob@example.com")).decode()
    sent = mail.users().messages().send(userId="me", body={"raw": raw}).execute()
    media = MediaIoBaseUpload(io.BytesIO(message("alias media send", "bob@example.com")), mimetype="message/rfc822", resumable=False)
    uploaded = mail.users().messages().send(userId="me", media_body=media).execute()
    return {"labels": [sent["labelIds"], uploaded["labelIds"]], "profile": mail.users().getProfile(userId="me").execute()["emailAddress"]}


SCENARIOS = {"gmail": gmail, "mail-alias": mail_alias, "publisher": publisher, "compute": compute, "discovery-v2": discovery_v2}

if __name__ == "__main__":
    httplib2.RETRIES = 1
    # The client's default is 60 s a request; fogbank answers these in milliseconds, so a request
    # left unanswered fails the scenario sooner.
    socket.setdefaulttimeout(30)
    json.dump(SCENARIOS[SCENARIO](), sys.stdout)
