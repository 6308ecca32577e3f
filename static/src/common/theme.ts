/** Light / dark theme: follows the system until the user picks one, remembered in localStorage. */

const KEY = "autograd-playground-theme";

function apply(theme: "light" | "dark", button: HTMLButtonElement): void {
  document.documentElement.dataset.theme = theme;
  button.textContent = theme === "dark" ? "☀ Light" : "☾ Dark";
  button.setAttribute("aria-label", `Switch to ${theme === "dark" ? "light" : "dark"} theme`);
}

export function setupTheme(button: HTMLButtonElement): void {
  const stored = localStorage.getItem(KEY);
  const system = window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  let theme: "light" | "dark" = stored === "dark" || stored === "light" ? stored : system;
  apply(theme, button);
  button.addEventListener("click", () => {
    theme = theme === "dark" ? "light" : "dark";
    localStorage.setItem(KEY, theme);
    apply(theme, button);
  });
}
