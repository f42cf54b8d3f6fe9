// The page inside a course platform (?lms=scorm2004|scorm12|cmi5, js/lms.js): the platform
// found and reported to once the page runs, and what the learner is told on screen when no
// platform answers or when one records nothing. Under a platform its record is the attempt's
// only one; without one the page keeps progress in this browser as anywhere else.
//
// createCoursePlatform takes the page's {call, getJson, progress, api, showNotice, atStart} and
// gives it {startCourse(course) (readCourse's course), report (the report once one records:
// answered, shown, finish), recording (true while the page keeps progress for a platform, not
// in this browser), setStartNotices (what the page said at its start, said again after the
// platform's line), notRecorded (says that nothing is recorded)}.
import { createCmi5Report, createReport, launchParams, readCmi5Launch, searchRuntime } from "./lms.js";

export function createCoursePlatform({ call, getJson, progress, api, showNotice, atStart }) {
  let report = null;  // createReport's or createCmi5Report's, once the platform records

  // The line said when the page was opened as a course but no platform answers (in the
  // learner's language: src/app/text/i18n.cpp has it).
  const NO_PLATFORM = "This page was opened as a course, but no course platform answered: " +
                      "your answers are kept in this browser only.";

  // Said when a platform is there but keeps no record of this session (it refused to open one,
  // or its LRS did not answer), and when it stops taking the page's reports midway.
  const NOT_RECORDED = "The course platform did not open a record of this session: what you answer here " +
                       "is not in its gradebook, and lasts until this page is closed.";
  const UNSAVED = "The course platform stopped taking this page's reports: what you answer now may not " +
                  "reach its gradebook.";
  // The platform's line comes first, before what the page said at its start (the address's
  // notes), so that it is shown in the learner's language and nothing said before is lost.
  let startNotices = [];
  const platformNotice = (line) => showNotice([line, ...startNotices].join("\n\n"));
  const tellLearner = (what) => platformNotice(what === "refused" ? NOT_RECORDED : UNSAVED);
  // Under a platform, its record is the attempt's only one: the progress kept in this browser
  // (another learner's, on a shared computer) is neither read nor written, nor put in the
  // address. Outside one (no platform answered) the page keeps progress as anywhere else.
  let platformRecord = false;
  function keepInBrowser() {
    platformRecord = false;
    progress.keepInBrowser(true);
    atStart("the progress kept in this browser", progress.restore);
  }

  // Inside a course package: the LMS's run-time (SCORM: searched up the frames and openers for
  // a few seconds) or its LRS (cmi5, from the launch parameters) is told what the learner does
  // (js/lms.js). Without one the page says so and runs as anywhere else; with one that records
  // nothing, it says that.
  async function startCourse(course) {
    platformRecord = true;
    progress.keepInBrowser(false);  // until the platform is known
    const page = {
      lessons: course.lessons, pass: course.pass,
      progress: () => getJson("ap_get_progress"),
      marks: (marks) => {
        const checked = progress.check(marks, "suspend_data");
        if (Object.keys(checked.marks).length > 0) {
          call("ap_set_progress", "string", ["string"], [JSON.stringify(checked.marks)]);
        }
        if (checked.problems.length > 0) console.warn("course progress set aside:", checked.problems.join("; "));
      },
      open: (lesson) => api.loadPreset(lesson),
      tell: tellLearner,
    };
    if (course.version === "cmi5") {
      const { launch, problems } = readCmi5Launch(launchParams(location.search));
      if (!launch) {
        console.warn("cmi5 launch parameters:", problems.join("; "));
        platformNotice(NO_PLATFORM);
        keepInBrowser();
        return;
      }
      const cmi5 = createCmi5Report({ ...page, launch, fetch: (...args) => window.fetch(...args),
                                      beacon: (url, form) => navigator.sendBeacon(url, form) });
      window.addEventListener("pagehide", () => cmi5.finish());
      if (await cmi5.start().catch(() => false)) report = cmi5;
      else platformNotice(NOT_RECORDED);
      return;
    }
    const runtime = await searchRuntime(window, course.version);
    if (!runtime) {
      platformNotice(NO_PLATFORM);
      keepInBrowser();
      return;
    }
    const scorm = createReport({ ...page, runtime, version: course.version });
    window.addEventListener("pagehide", () => scorm.finish());
    if (scorm.start()) report = scorm;
  }

  return {
    startCourse,
    report: () => report,
    recording: () => platformRecord,
    setStartNotices: (notices) => { startNotices = notices; },
    notRecorded: () => platformNotice(NOT_RECORDED),
  };
}
