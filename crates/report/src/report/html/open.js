function openFromHash(){var id=decodeURIComponent(location.hash.slice(1));if(!id)return;
var el=document.getElementById(id);if(el&&el.tagName==='DETAILS'){el.open=true;el.scrollIntoView();}}
window.addEventListener('hashchange',openFromHash);openFromHash();
