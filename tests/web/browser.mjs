// Launches Debian's Chromium (/usr/bin/chromium) headless through playwright-core, with the
// flags that keep it off the network and give it WebGL2 on SwiftShader.
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.AP_CHROMIUM ?? "/usr/bin/chromium";

export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
    ],
  });
}
