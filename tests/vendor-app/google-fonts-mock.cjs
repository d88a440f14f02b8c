// NEXT_FONT_GOOGLE_MOCKED_RESPONSES for the vendor app's `next build` (generate.mjs): what next/font/google
// would download from Google Fonts, by URL, so the build needs no network. Next evaluates this file and
// looks the URL up (webpack and Turbopack alike); a URL missing here fails the build with the URL in its
// message: add it. The faces point at local() fonts, so there are no font files to fetch either, and the
// browser falls back to the font stack Next adds. These are the template's Geist and Geist Mono.
const face = (family) => `/* latin */
@font-face {
  font-family: '${family}';
  font-style: normal;
  font-weight: 100 900;
  font-display: swap;
  src: local('${family}');
}
`;

module.exports = {
  "https://fonts.googleapis.com/css2?family=Geist:wght@100..900&display=swap": face("Geist"),
  "https://fonts.googleapis.com/css2?family=Geist+Mono:wght@100..900&display=swap": face("Geist Mono"),
};
