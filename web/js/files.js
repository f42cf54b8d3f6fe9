// Files in and out: exports to the clipboard through the browser (Emscripten 3.1.6's GLFW has
// no clipboard) or, when the clipboard is refused and for binary files, a download; long
// exports written in parts with their progress; and the learner's own files, opened from the
// app's menu or dropped on the page.
//
// createFiles takes the app's calls ({call, getJson, api, isReady, running, limits,
// showNotice, failure}) and gives the page {deliver, download, exportInParts, onAppExport,
// pickFile, pendingPng}; the drop listeners are installed on the window.
export function createFiles({ call, getJson, api, isReady, running, limits, showNotice, failure }) {
  const pendingPng = []; // resolvers of exportPng, in request order


  function toast(key, detail) {
    if (running()) call("ap_toast", null, ["string", "string"], [key, detail]);
  }

  function download(filename, mime, bytes) {
    const url = URL.createObjectURL(bytes instanceof Blob ? bytes : new Blob([bytes], { type: mime }));
    const a = document.createElement("a");
    a.href = url;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  async function deliver(filename, mime, bytes, copy) {
    if (copy) {
      try {
        if (!navigator.clipboard) throw new Error("no clipboard");
        await navigator.clipboard.writeText(new TextDecoder().decode(bytes));
        toast("Copied to the clipboard:", filename);
        return "copied";
      } catch {
        // refused (no permission, no user gesture, insecure context): download instead
      }
    }
    download(filename, mime, bytes);
    toast("Downloaded", filename);
    return "downloaded";
  }

  // A long export from the app's menu: written in parts with its progress shown, then
  // downloaded (the clipboard is no place for tens of megabytes).
  async function exportInParts(what, format, head, batch) {
    let shown = -1;
    const r = await api.exportFile(what, {
      format, head: Number(head), batch: Number(batch),
      onProgress: (done, total) => {
        const percent = Math.floor((100 * done) / Math.max(1, total));
        if (percent !== shown) toast("Exporting", `${what} ${percent}%`);
        shown = percent;
      },
    });
    if (!r.ok) {
      showNotice(r.error);
      return;
    }
    download(r.filename, r.mime, r.blob);
    toast("Downloaded", r.filename);
  }

  // A file the app made: a PNG exportPng waits for, else to the clipboard or a download.
  function onAppExport(filename, mime, bytes, copy) {
    if (mime === "image/png" && pendingPng.length > 0) {
      pendingPng.shift()(new Blob([bytes], { type: mime }));
      return;
    }
    deliver(filename, mime, bytes, copy);
  }

  // ---------------------------------------------------------------------------------------
  // Files from the learner's disk: "Open a file…" in the app, or a file dropped on the page
  // ---------------------------------------------------------------------------------------

  // A scenario (.json) or NumPy arrays (.npy, .npz); a problem is shown on the canvas.
  async function openFile(file) {
    if (!isReady()) return;
    const json = /\.json$/i.test(file.name);
    const limit = json ? limits().max_scenario_chars * 4 : limits().max_file_bytes;
    let answer;
    if (file.size > limit) {
      answer = failure(`is ${file.size} bytes, at most ${limit}`);
    } else {
      try {
        answer = json ? api.setScenario(await file.text())
          : api.loadArrays(await file.arrayBuffer(), file.name);
      } catch (e) {
        answer = failure(`cannot be read (${e.message})`);
      }
    }
    if (answer.ok) {
      toast("Opened", file.name);
    } else {
      const error = answer.error.startsWith(`${file.name}: `) ? answer.error
        : `${file.name}: ${answer.error}`;
      showNotice(`This file could not be opened.\n${error}`);
    }
  }

  function pickFile() {
    const input = document.createElement("input");
    input.type = "file";
    input.accept = ".json,.npy,.npz,application/json";
    input.addEventListener("change", () => {
      if (input.files.length > 0) openFile(input.files[0]);
    });
    input.click();
  }

  const dropAllowed = (event) => isReady() && event.dataTransfer?.types.includes("Files") &&
    !getJson("ap_get_view").hidden.includes("open");
  window.addEventListener("dragover", (event) => {
    if (!dropAllowed(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  window.addEventListener("drop", (event) => {
    if (!dropAllowed(event)) return;
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    if (file) openFile(file);
  });

  return { deliver, download, exportInParts, onAppExport, pickFile, pendingPng };
}
