// The link: the scenario and the view after '#' in the address, opened at start and when the
// learner puts another one there, and written there as the learner works (250 ms after the last
// change; never over a link just pasted, nor over one refused until the learner acts).
//
// createLink takes the page's {call, callWithText, getJson, showNotice, emit, leaveAlone (true
// when the page leaves its address alone: embedded, or a course platform's record)} and gives
// it {openLink, unreadFragment, scheduleLinkUpdate, releaseRefusedLink}.
export function createLink({ call, callWithText, getJson, showNotice, emit, leaveAlone }) {
  let lastLink = "";  // the fragment the page last opened, refused or wrote itself
  let linkTimer = 0;
  // A refused link stays in the address bar (and in the history) until the learner changes
  // something: the page does not write its own link over it.
  let keepRefusedLink = false;

  function openLink(fragment, atStart = false) {
    lastLink = fragment.replace(/^#/, "");
    const error = callWithText("ap_open_link", fragment);
    keepRefusedLink = Boolean(error);
    if (error) {
      const fallback = atStart ? "so the playground starts with its first lesson" : "so the playground keeps what it shows";
      showNotice(`This link could not be opened, ${fallback}.\n${error}`);
      return false;
    }
    return true;
  }

  // A fragment the learner put in the address that the page has not read yet (its hashchange
  // event may still be queued).
  const unreadFragment = () => location.hash.length > 1 && location.hash.slice(1) !== lastLink;

  function scheduleLinkUpdate() {
    if (leaveAlone()) return; // an embedded playground (or a course's) leaves its address alone
    if (keepRefusedLink) return;
    clearTimeout(linkTimer);
    linkTimer = setTimeout(() => {
      // Never write over a link that was just pasted: read it first (open it or refuse it).
      if (unreadFragment()) {
        openLink(location.hash);
        return;
      }
      // A scenario still computing in parts would be finished at once to write its link,
      // holding the page for seconds: the event at its end schedules this again.
      if (getJson("ap_stats").computing !== null) return;
      const link = call("ap_get_link", "string", [], []);
      if (!link || link === lastLink) return;
      lastLink = link;
      history.replaceState(null, "", `${location.pathname}${location.search}#${link}`);
      emit("link", { link: location.href });
    }, 250);
  }

  // The learner's own input ends the hold on a refused link (keepRefusedLink).
  function releaseRefusedLink() {
    keepRefusedLink = false;
  }

  return { openLink, unreadFragment, scheduleLinkUpdate, releaseRefusedLink };
}
